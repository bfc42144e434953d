// Decides a Run's end reason and message from what was observed, and makes the Outcome of it.
// The one place reasons are ranked: an interruption we caused outranks what the engine did, which
// outranks the reader, which outranks the exit facts.

import { constants } from "node:os";
import { DEADLINE_COMMAND } from "../container/index.js";
import type { EndReason, ExitFacts, Outcome, ReaderVerdict } from "../plan/index.js";
import { type Masker, createMasker } from "../redact/index.js";
import { MAX_STDERR_RECORD_BYTES, STDERR_QUOTE_BYTES } from "./limits.js";
import type { Interruption } from "./stop.js";
import { newRunId } from "./run-id.js";

export type Observed = {
  readonly interruption?: Interruption;
  readonly interruptionDetail?: string;
  /** The engine refused or failed (create, start, wait); its words. */
  readonly engineFailure?: string;
  readonly readerThrew?: string;
  /** The container was removed by someone other than this Run while it ran. */
  readonly removedFromOutside?: boolean;
  /** The container died of a signal this Run did not send: by someone (the engine still answers), or as the engine went away. */
  readonly stoppedFromOutside?: "by_someone" | "engine_gone";
  readonly verdict?: ReaderVerdict;
  readonly exit?: ExitFacts;
  readonly stderr: string;
};

/** The signal a 128+n exit code stands for, when it stands for one. */
export function signalOfExitCode(code: number): string | undefined {
  if (code <= 128 || code > 128 + 64) return undefined;
  const n = code - 128;
  return Object.entries(constants.signals).find(([, value]) => value === n)?.[0];
}

/**
 * How the container's init (tini: "exec timeout failed") or the engine ('exec: "timeout":
 * executable file not found') says that the image has no timer to run the agent under.
 */
const NO_TIMER = new RegExp(`exec:? "?${DEADLINE_COMMAND}"?:? (?:failed|executable file not found)`);

/** Exit codes that mean the command never ran: docker's 125, not executable 126, not found 127. */
const NEVER_RAN = new Set([125, 126, 127]);

export function decideReason(o: Observed): EndReason {
  if (o.interruption !== undefined) return o.interruption;
  // Not the agent's failure: whatever it printed was cut short by someone else.
  if (o.removedFromOutside === true) return "cancelled";
  if (o.stoppedFromOutside === "engine_gone") return "unavailable";
  if (o.stoppedFromOutside === "by_someone") return "cancelled";
  if (o.engineFailure !== undefined) return "unavailable";
  // The command never ran: whatever a reader made of no output, nothing was done.
  if (o.exit !== undefined && NEVER_RAN.has(o.exit.code) && !o.exit.oomKilled) return "unavailable";
  if (o.readerThrew !== undefined) return "reader_error";
  if (o.verdict?.ok === true) return "completed";
  if (o.exit?.oomKilled === true) return "oom";
  return "failed";
}

function describeExit(exit: ExitFacts): string {
  const how = exit.signal === undefined ? `exited with code ${exit.code}` : `was killed by ${exit.signal} (exit code ${exit.code})`;
  return exit.oomKilled ? `${how} after running out of memory` : how;
}

function quoteStderr(stderr: string): string | undefined {
  const bytes = Buffer.from(stderr.trim());
  if (bytes.length === 0) return undefined;
  let end = Math.min(bytes.length, STDERR_QUOTE_BYTES);
  // Cut on a character boundary: back up over UTF-8 continuation bytes (10xxxxxx).
  while (end < bytes.length && end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  const cut = end < bytes.length;
  return `stderr: ${bytes.subarray(0, end).toString("utf8")}${cut ? " [...]" : ""}`;
}

/** One message: what ended the Run, the reader's error, the exit facts, the start of stderr. */
export function describeFailure(o: Observed): string {
  const parts: string[] = [];
  if (o.interruptionDetail !== undefined) parts.push(o.interruptionDetail);
  if (o.interruption === undefined && o.removedFromOutside === true) {
    parts.push("the container was removed from outside the Run (by another process or by hand) before it ended");
  }
  if (o.interruption === undefined && o.stoppedFromOutside === "engine_gone") {
    parts.push(
      `the engine went away while the Run ran: it stopped the container (${o.exit?.signal ?? "a signal"} this Run did not send) and then stopped answering; what the agent left is not harvested`,
    );
  }
  if (o.interruption === undefined && o.stoppedFromOutside === "by_someone") {
    parts.push(`the container was stopped from outside the Run (${o.exit?.signal ?? "a signal"} this Run did not send: a docker stop or kill) before it ended`);
  }
  if (o.engineFailure !== undefined) parts.push(o.engineFailure);
  if (o.readerThrew !== undefined) parts.push(`the reader threw: ${o.readerThrew}`);
  else if (o.verdict !== undefined && !o.verdict.ok) parts.push(o.verdict.error ?? "the reader said the Run failed");
  else if (o.verdict === undefined && o.interruption === undefined && o.engineFailure === undefined) parts.push("the reader gave no verdict");
  if (o.exit !== undefined) parts.push(`the agent ${describeExit(o.exit)}`);
  const quoted = quoteStderr(o.stderr);
  if (quoted !== undefined) parts.push(quoted);
  if (NO_TIMER.test(`${o.engineFailure ?? ""}\n${o.stderr.slice(0, STDERR_QUOTE_BYTES)}`)) {
    parts.push(
      `the image has no \`${DEADLINE_COMMAND}\` on its PATH, which every Run's agent runs under (its container's own deadline); add coreutils or busybox to the image`,
    );
  }
  return parts.join("; ");
}

/** What a Run's container did, as the container run saw it. */
export type ContainerFacts<R extends ReaderVerdict> = Omit<Observed, "verdict" | "stderr"> & {
  readonly verdict?: R;
  readonly stdoutBytes: number;
  /** Stderr as kept (capped), unmasked, and how many bytes there were in all. */
  readonly stderrText: string;
  readonly stderrBytes: number;
};

/** The Outcome of a Run whose container ran (or was meant to): every text masked. */
export function outcomeOf<R extends ReaderVerdict>(runId: string, facts: ContainerFacts<R>, masker: Masker, durationMs: number): Outcome<R> {
  const stderr = maskedStderr(facts, masker);
  const observed: Observed = { ...facts, stderr };
  const reason = decideReason(observed);
  const ok = reason === "completed";
  return {
    runId,
    ok,
    reason,
    ...(ok ? {} : { error: masker.mask(describeFailure(observed)) }),
    ...(facts.exit === undefined ? {} : { exit: facts.exit }),
    durationMs,
    ...(facts.verdict === undefined ? {} : { result: masker.maskDeep(facts.verdict) }),
    stdoutBytes: facts.stdoutBytes,
    stderrBytes: facts.stderrBytes,
    stderr,
  };
}

/** Stderr as kept, masked; when it was cut, a secret may straddle the cut, so its tail goes too. */
function maskedStderr(facts: ContainerFacts<ReaderVerdict>, masker: Masker): string {
  const masked = masker.mask(facts.stderrText);
  if (facts.stderrBytes <= MAX_STDERR_RECORD_BYTES) return masked;
  return masked.slice(0, Math.max(0, masked.length - Math.max(0, masker.longest() - 1)));
}

/** An Outcome for a Run that ended before its container ran. */
export function earlyOutcome<R extends ReaderVerdict>(runId: string, startedAt: number, masker: Masker, reason: EndReason, error: string): Outcome<R> {
  return {
    runId,
    ok: false,
    reason,
    error: masker.mask(error),
    durationMs: Math.round(performance.now() - startedAt),
    stdoutBytes: 0,
    stderrBytes: 0,
    stderr: "",
  };
}

/**
 * An Outcome for a Run an adapter refused before asking the runtime (a malformed request, no
 * credential), with a run id of its own. `error` is kept as given: it must hold no secret.
 */
export function refusedOutcome<R extends ReaderVerdict>(reason: EndReason, error: string): Outcome<R> {
  // Nothing ran: 0 ms, where timing it counted the masker's making (a millisecond on a busy machine, and a flaky test).
  return { ...earlyOutcome<R>(newRunId(), performance.now(), createMasker(), reason, error), durationMs: 0 };
}
