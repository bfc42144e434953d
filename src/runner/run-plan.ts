// The Run Plan per CLI, as its adapter makes it: the agent's argv, its stdin, and how its stdout is
// read into an Outcome, with each event masked once, shown to the Run's guards, then told to the caller.
// Invariant: the caller's onEvent throwing never ends the Run; it is reported once and not called again.

import type { RunPlanFunction } from "../plan/index.js";
import { adapterFor, type AgentEvent, type AgentRequest, type AgentResult } from "../agents/index.js";
import { EXIT_AFTER_RESULT_MS } from "./limits.js";
import type { RunnerSettings } from "./settings.js";

/** What rides on the prompt from `run` to the plan function. */
export type PlannedRequest = {
  readonly request: AgentRequest;
  readonly onEvent?: (event: AgentEvent) => void;
  readonly onEventFailed?: (error: unknown) => void;
  /** The Run's guards: each event the agent printed (masked), and the events they add (budget). */
  readonly watch: (event: AgentEvent) => AgentEvent[];
  /** Takes the Run's own way to tell the caller an event (masked, the caller's failures caught), for events the runner makes. */
  readonly attach?: (deliver: (event: AgentEvent) => void) => void;
  /** The CLI reads its key with this helper command (hand-over.ts: keyHelperFor); default: from its environment. */
  readonly keyHelper?: string;
};

/**
 * The plan function of a runner's runtime: the request's CLI's argv and reader, from its adapter.
 * `streamInput`: a CLI that waitsForPrompt (claude) takes its prompt as a message, as a pool member's
 * CLI started ahead must (it waits for its prompt however long the claim takes); the model is sent the same.
 */
export function planRun(
  settings: Pick<RunnerSettings, "workdir" | "keepSessions" | "endpoints">,
  streamInput = false,
): RunPlanFunction<AgentResult, PlannedRequest> {
  const { workdir, keepSessions, endpoints } = settings;
  return (prompt, { mask }) => {
    const { request, onEvent, onEventFailed, watch, attach, keyHelper } = prompt.request;
    const tell = callerTeller(onEvent, onEventFailed);
    // Events the runner makes (a stall warning) are masked like the agent's.
    attach?.((event) => tell(mask(event)));
    // Each event is masked once; the guards see it masked (a guard may quote one in the Outcome), whether or not the caller listens.
    const live = {
      onEvent: (event: AgentEvent) => {
        const masked = mask(event);
        const added = watch(masked);
        tell(masked);
        for (const extra of added) tell(mask(extra));
      },
    };
    const adapter = adapterFor(request.cli);
    const plan = adapter.plan(request, prompt.text, {
      workdir,
      keepSession: keepSessions,
      endpoint: endpoints[request.cli],
      streamInput: streamInput && adapter.waitsForPrompt,
      ...(keyHelper === undefined ? {} : { keyHelper }),
    });
    return { args: plan.args, stdin: plan.stdin, request, exitGraceMs: EXIT_AFTER_RESULT_MS, outcome: (stdout) => plan.read(stdout, live) };
  };
}

/** The caller's callback failing is the caller's bug: reported in the Outcome, never the Run's end. */
function callerTeller(onEvent: PlannedRequest["onEvent"], onEventFailed: PlannedRequest["onEventFailed"]): (masked: AgentEvent) => void {
  let failed = false;
  return (masked) => {
    if (failed || onEvent === undefined) return;
    try {
      onEvent(masked);
    } catch (error) {
      failed = true;
      onEventFailed?.(error);
    }
  };
}
