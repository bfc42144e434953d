// Decides what an agent Run's span says beyond the runtime's: its caller's trace context and wait in
// a queue before it, its CLI and network policy, what it spent, and a child span per model call the
// egress proxy metered. Invariant: only kinds, counts and times go in; the meter's calls never reach the Outcome.

import { context } from "@opentelemetry/api";
import type { RunMeter } from "../egress/index.js";
import { parentContext, type RunTrace, startRunTrace, type TraceHeaders } from "../trace/index.js";
import type { AgentOutcome } from "./outcome.js";

/** A caller's trace context for one Run: its W3C headers, and since when the Run waited in the caller's queue. */
export type RunTraceContext = TraceHeaders & {
  /** ms since the epoch: the Run's span starts then, with a `queue` step up to now. Default: now. */
  readonly queuedSince?: number;
};

/** The Run's span: under the caller's remote span when its traceparent is good, else the active context. */
export function startAgentRunTrace(runId: string | undefined, given: RunTraceContext | undefined): RunTrace {
  const parent = parentContext(given, context.active());
  const queuedSince = typeof given?.queuedSince === "number" && Number.isFinite(given.queuedSince) ? given.queuedSince : undefined;
  const now = Date.now();
  const started = queuedSince === undefined || queuedSince > now ? undefined : queuedSince;
  const trace = startRunTrace(runId, parent, started);
  if (started !== undefined) trace.stepDone("queue", started, now);
  return trace;
}

/** Ends the Run's span with its Outcome: the end reason, the exit, tokens and cost (the proxy's count when it metered), each model call. */
export function endAgentRunTrace(trace: RunTrace, outcome: AgentOutcome, meter: RunMeter | undefined): void {
  trace.set({
    runId: outcome.runId,
    ...(outcome.cli === undefined ? {} : { cli: outcome.cli }),
    ...(outcome.network === undefined ? {} : { networkPolicy: outcome.network.policy }),
  });
  if (meter?.calls !== undefined) {
    trace.modelCalls(
      meter.calls.map((call) => ({
        startedAt: call.startedAt,
        endedAt: call.endedAt,
        ...(call.status === undefined ? {} : { status: call.status }),
        ...(call.model === undefined ? {} : { model: call.model }),
        inputTokens: call.inputTokens,
        outputTokens: call.outputTokens,
        costUsd: call.costUsd,
      })),
    );
  }
  const usage = meter?.usage ?? outcome.result?.usage;
  const costUsd = meter?.costUsd ?? outcome.result?.costUsd;
  trace.end({
    ok: outcome.ok,
    reason: outcome.reason,
    ...(outcome.exit === undefined ? {} : { exitCode: outcome.exit.code }),
    ...(usage === undefined ? {} : { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }),
    ...(costUsd === undefined ? {} : { costUsd }),
    ...(outcome.queuedMs === undefined ? {} : { queuedMs: outcome.queuedMs }),
    ...(outcome.warm === undefined ? {} : { warm: outcome.warm }),
  });
}

/** The meter as the Outcome carries it: without the per-call list, which is for the spans. */
export function meterForOutcome(meter: RunMeter): RunMeter {
  const { calls: _calls, ...rest } = meter;
  return rest;
}
