// Decides the spans of one Run: `agentcage.run`, a child span per step, one per proxied model call,
// and the only attributes they may carry. Invariant: every attribute comes from a typed field below
// (ids, kinds, counts, times); no prompt, key, token, path or message of the Run can reach a span.

import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/** The steps of a Run, named as the runtime names them. */
export type RunStep = "queue" | "stage" | "create" | "start" | "stream" | "harvest" | "remove";

/** What is known of a Run as it goes; each field at most once matters (the last one set wins). */
export type RunFacts = {
  readonly runId?: string;
  readonly cli?: string;
  readonly networkPolicy?: string;
  readonly warm?: boolean;
};

/** What a Run's end says: its Outcome's kinds and counts, never its texts. */
export type RunEnd = {
  readonly ok: boolean;
  readonly reason: string;
  readonly exitCode?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
  readonly queuedMs?: number;
  readonly warm?: boolean;
};

/** One model call the egress proxy forwarded, from what its meter reports. */
export type ModelCallFacts = {
  /** ms since the epoch. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status?: number;
  readonly model?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
};

export type RunTrace = {
  /** The context the Run's span is active in: what a child span of the Run starts under. */
  readonly context: Context;
  /** `work` as the step's span: started now, ended when it settles (an error status when it throws). */
  readonly step: <T>(name: RunStep, work: () => Promise<T>) => Promise<T>;
  /** A step that is over already, from its start and end (ms since the epoch). */
  readonly stepDone: (name: RunStep, startedAt: number, endedAt: number) => void;
  readonly set: (facts: RunFacts) => void;
  /** A child span per model call the proxy forwarded for the Run. */
  readonly modelCalls: (calls: readonly ModelCallFacts[]) => void;
  /** Ends the Run's span with what its Outcome says; once (later calls do nothing). */
  readonly end: (end: RunEnd) => void;
};

const TRACER_NAME = "agentcage";

/**
 * The Run's span, started under `parent` (the caller's span, or the active context) at `startedAt`
 * (ms since the epoch; default now). A run id not known yet is `set` later.
 */
export function startRunTrace(runId: string | undefined, parent: Context, startedAt?: number): RunTrace {
  const tracer = trace.getTracer(TRACER_NAME);
  const span = tracer.startSpan(
    "agentcage.run",
    {
      kind: SpanKind.INTERNAL,
      attributes: factAttributes({ ...(runId === undefined ? {} : { runId }) }),
      ...(startedAt === undefined ? {} : { startTime: startedAt }),
    },
    parent,
  );
  const context = trace.setSpan(parent, span);
  const child = (name: RunStep, startTime?: number): Span => tracer.startSpan(`agentcage.${name}`, startTime === undefined ? {} : { startTime }, context);
  let ended = false;
  return {
    context,
    step: async (name, work) => {
      const stepSpan = child(name);
      try {
        return await work();
      } catch (error) {
        // Only that it threw: its message may quote the Run's inputs.
        stepSpan.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        stepSpan.end();
      }
    },
    stepDone: (name, startTime, endTime) => child(name, startTime).end(endTime),
    set: (facts) => {
      if (span.isRecording()) span.setAttributes(factAttributes(facts));
    },
    modelCalls: (calls) => {
      if (!span.isRecording()) return;
      for (const call of calls) {
        tracer
          .startSpan("agentcage.model_call", { kind: SpanKind.CLIENT, startTime: call.startedAt, attributes: modelCallAttributes(call) }, context)
          .end(call.endedAt);
      }
    },
    end: (end) => {
      if (ended) return;
      ended = true;
      if (span.isRecording()) {
        span.setAttributes(endAttributes(end));
        span.setStatus(end.ok ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, message: end.reason });
      }
      span.end();
    },
  };
}

function factAttributes(facts: RunFacts): Attributes {
  return {
    ...(facts.runId === undefined || facts.runId === "" ? {} : { "agentcage.run.id": facts.runId }),
    ...(facts.cli === undefined ? {} : { "agentcage.cli": facts.cli }),
    ...(facts.networkPolicy === undefined ? {} : { "agentcage.network.policy": facts.networkPolicy }),
    ...(facts.warm === undefined ? {} : { "agentcage.warm": facts.warm }),
  };
}

function endAttributes(end: RunEnd): Attributes {
  return {
    "agentcage.outcome.ok": end.ok,
    "agentcage.outcome.reason": end.reason,
    ...(end.warm === undefined ? {} : { "agentcage.warm": end.warm }),
    ...(end.exitCode === undefined ? {} : { "agentcage.exit.code": end.exitCode }),
    ...(end.inputTokens === undefined ? {} : { "gen_ai.usage.input_tokens": end.inputTokens }),
    ...(end.outputTokens === undefined ? {} : { "gen_ai.usage.output_tokens": end.outputTokens }),
    ...(end.costUsd === undefined ? {} : { "agentcage.cost_usd": end.costUsd }),
    ...(end.queuedMs === undefined ? {} : { "agentcage.queued_ms": end.queuedMs }),
  };
}

function modelCallAttributes(call: ModelCallFacts): Attributes {
  return {
    "gen_ai.usage.input_tokens": call.inputTokens,
    "gen_ai.usage.output_tokens": call.outputTokens,
    "agentcage.cost_usd": call.costUsd,
    ...(call.status === undefined ? {} : { "http.response.status_code": call.status }),
    ...(call.model === undefined ? {} : { "gen_ai.response.model": call.model }),
  };
}
