// The runtime alone, under a tracer provider its user registered: run() makes its own agentcage.run
// span as a child of the user's active span, with its container's steps, ended with the Outcome; a
// refused call is a span too, with its end reason.

import { context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { createAgentContainerRuntime, type RunPlanFunction, type RunPrompt } from "../index.js";

const silent = pino({ level: "silent" });
const echo: RunPlanFunction = (prompt) => ({ args: ["cat"], stdin: prompt.text, outcome: async () => ({ ok: true }) });
const exporter = new InMemorySpanExporter();
beforeAll(() => new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register());
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

describe("run() under a registered tracer provider", () => {
  it("is an agentcage.run span, a child of the caller's active span, with the container's steps", async () => {
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run: echo, engine: createFakeEngine({ echoStdin: true }) });
    const outcome = await trace.getTracer("a caller").startActiveSpan("the caller's job", async (job) => {
      try {
        return await runtime.run({ text: "hello" });
      } finally {
        job.end();
      }
    });
    expect(outcome.ok).toBe(true);
    const spans = exporter.getFinishedSpans();
    const job = spans.find((span) => span.name === "the caller's job");
    const run = spans.find((span) => span.name === "agentcage.run");
    expect(run?.parentSpanContext?.spanId).toBe(job?.spanContext().spanId);
    expect(run?.attributes).toMatchObject({ "agentcage.run.id": outcome.runId, "agentcage.outcome.ok": true, "agentcage.outcome.reason": "completed" });
    const steps = spans
      .filter((span) => span.parentSpanContext?.spanId === run?.spanContext().spanId && span.name !== "agentcage.queue")
      .map((span) => span.name);
    expect(steps).toEqual(["agentcage.create", "agentcage.start", "agentcage.stream", "agentcage.remove"]);
  });

  it("is a span for a refused call too, ended with its end reason", async () => {
    const runtime = createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run: echo, engine: createFakeEngine() });
    const outcome = await runtime.run({ text: 42 } as unknown as RunPrompt);
    expect(outcome.reason).toBe("invalid_request");
    const [run] = exporter.getFinishedSpans();
    expect(run?.attributes).toMatchObject({ "agentcage.outcome.ok": false, "agentcage.outcome.reason": "invalid_request" });
  });
});
