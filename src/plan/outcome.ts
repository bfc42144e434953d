// The typed end of a Run. Every way a Run can end is a reason here; run() resolves with an
// Outcome for all of them and never rejects for what happened to a Run.

import type { HarvestResult } from "./harvest-result.js";
import type { ReaderVerdict } from "./run-plan.js";

/** Every way a Run can end; each Outcome's `reason` is one of these. */
export const END_REASONS = [
  /** The reader said ok. */
  "completed",
  /** The reader said not ok. */
  "failed",
  "timeout",
  "cancelled",
  /** A budget cap (turns, tokens, cost, wall time) was passed; the agent was stopped. */
  "budget_exceeded",
  /** The agent printed nothing and used no CPU for its stall time; it was stopped. */
  "stalled",
  "oom",
  /** Stdout passed its cap; the container was killed. */
  "output_limit",
  /** The stdin the plan asked for passed its cap; nothing was started. */
  "input_limit",
  /** Daemon unreachable, image missing, command not found or not executable (125/126/127). */
  "unavailable",
  /** The reader threw. */
  "reader_error",
  /** The Run Plan function threw or returned something that is not a plan. */
  "plan_error",
  /** The call itself was malformed (a prompt that is not text, a timeout out of range, bad inputs). */
  "invalid_request",
  /** The reader said ok, but what the agent left in out/ broke a Harvest rule; nothing was copied. */
  "harvest_refused",
  /** The agent filled what it may write (staging.writableBytes); its writes past it failed. */
  "write_limit",
] as const;

/** How a Run ended (one of END_REASONS): what a caller branches on, never the message. */
export type EndReason = (typeof END_REASONS)[number];

/** How the container's process ended, as the engine saw it. Facts, not the verdict. */
export type ExitFacts = {
  readonly code: number;
  /** Set when the code says the process died of a signal (128 + n). */
  readonly signal?: string;
  readonly oomKilled: boolean;
};

/**
 * The typed end of a Run, whatever happened to it: run() resolves with one and never rejects. `ok` and
 * `reason` say how it ended, `result` what the reader made of the agent's stdout (secrets masked).
 */
export type Outcome<R extends ReaderVerdict = ReaderVerdict> = {
  readonly runId: string;
  readonly ok: boolean;
  readonly reason: EndReason;
  /** One message for a person: the reader's error, then the exit facts, then the start of stderr. */
  readonly error?: string;
  readonly exit?: ExitFacts;
  /** The Run's own time, from its slot to its end; the wait for a slot is `queuedMs`. */
  readonly durationMs: number;
  /** How long the Run waited for a free slot (maxConcurrentRuns) before it began; 0 when it did not. */
  readonly queuedMs?: number;
  /** What the reader returned, with secret values masked; absent when it never finished. */
  readonly result?: R;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** Stderr as kept for the record (capped), secret values masked. */
  readonly stderr: string;
  /** What the Harvest copied, or why it refused; present when a destination was given and the reader said ok. */
  readonly harvest?: HarvestResult;
  /** With a session store: the session it was kept as, or why it was not (the earlier store stays as it was). */
  readonly session?: { readonly id: string; readonly kept: true } | { readonly id?: string; readonly kept: false; readonly error: string };
  /**
   * With a warm pool: true when the Run was served by a container started ahead (bound to it at its
   * claim), false when it was started cold. Absent without a pool, and for a Run that ended before its container.
   */
  readonly warm?: boolean;
  /** The container runtime the Run was declared to run under (e.g. "runsc"), when it named one; else the engine's default. */
  readonly containerRuntime?: string;
  /** The Run directory, when it is kept (keepRuns). */
  readonly runDirectory?: string;
};
