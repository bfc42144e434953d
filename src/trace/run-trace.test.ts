// The spans startRunTrace makes: a model call a CLIENT child of the Run with its counts, a step that
// throws an error status with no message, the Run's end once; and nothing at all without a provider.

import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { parentContext, remoteSpanContext, startRunTrace } from "./index.js";

const exporter = new InMemorySpanExporter();
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

describe("startRunTrace", () => {
  it("makes no span anyone can see before a provider is registered", async () => {
    const run = startRunTrace("0123456789abcdef", ROOT_CONTEXT);
    await run.step("stage", async () => undefined);
    run.end({ ok: true, reason: "completed" });
    expect(trace.getSpan(run.context)?.isRecording()).toBe(false);
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("makes a CLIENT span per model call, a child of the Run, with its status, model, tokens and cost", () => {
    const run = startRunTrace("0123456789abcdef", ROOT_CONTEXT);
    run.modelCalls([{ startedAt: 1_700_000_000_000, endedAt: 1_700_000_001_500, status: 200, model: "gpt-5", inputTokens: 7, outputTokens: 3, costUsd: 0.25 }]);
    run.end({ ok: false, reason: "failed" });
    run.end({ ok: true, reason: "completed" });
    const [call, span] = exporter.getFinishedSpans();
    expect(call?.name).toBe("agentcage.model_call");
    expect(call?.kind).toBe(SpanKind.CLIENT);
    expect(call?.parentSpanContext?.spanId).toBe(span?.spanContext().spanId);
    expect(call?.duration).toEqual([1, 500_000_000]);
    expect(call?.attributes).toEqual({
      "http.response.status_code": 200,
      "gen_ai.response.model": "gpt-5",
      "gen_ai.usage.input_tokens": 7,
      "gen_ai.usage.output_tokens": 3,
      "agentcage.cost_usd": 0.25,
    });
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: "failed" });
  });

  it("marks a step that throws as an error without its message, and throws it on", async () => {
    const run = startRunTrace("0123456789abcdef", ROOT_CONTEXT);
    await expect(run.step("harvest", () => Promise.reject(new Error("/home/someone/secret-inputs")))).rejects.toThrow("secret-inputs");
    const [step] = exporter.getFinishedSpans();
    expect(step?.name).toBe("agentcage.harvest");
    expect(step?.status).toEqual({ code: SpanStatusCode.ERROR });
  });
});

describe("parentContext", () => {
  it("is the caller's remote span for a good traceparent, with its tracestate", () => {
    const parent = parentContext({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "vendor=abc" });
    expect(trace.getSpanContext(parent)).toMatchObject({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
      isRemote: true,
    });
    expect(trace.getSpanContext(parent)?.traceState?.get("vendor")).toBe("abc");
  });

  it.each(["", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "garbage"])(
    "is the fallback for %j",
    (traceparent) => {
      expect(remoteSpanContext({ traceparent })).toBeUndefined();
      expect(parentContext({ traceparent })).toBe(ROOT_CONTEXT);
    },
  );
});
