// A Run's spans as an in-memory exporter receives them: one agentcage.run with its steps as children,
// under the caller's traceparent when it sent a good one, and nothing of the prompt or the key in any
// name, attribute, event or status.

import { readFileSync } from "node:fs";
import { context, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AgentRunOptions, createAgentRunner, type EgressGateway } from "../index.js";
import type { RunMeter } from "../subpaths/egress.js";
import { createFakeEngine } from "../../test/support/fake-engine.js";

const silent = pino({ level: "silent" });
const CANARY = "sk-ant-canary-9f8e7d6c5b4a39281706";
const claudePlain = readFileSync(new URL("../../test/fixtures/claude/plain.jsonl", import.meta.url));
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

const exporter = new InMemorySpanExporter();
beforeAll(() => new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register());
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

async function runOnce(options: AgentRunOptions = {}, prompt = "What is the capital of France?") {
  const engine = createFakeEngine({ stdout: [claudePlain] });
  const runner = createAgentRunner({ image: "agent:1", environment: { ANTHROPIC_API_KEY: CANARY }, networks: ["agents"], logger: silent, engine });
  return runner.run({ cli: "claude" }, prompt, options);
}

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("a Run's spans", () => {
  it("are agentcage.run with a child per step of its container", async () => {
    const outcome = await runOnce();
    expect(outcome.ok).toBe(true);
    const spans = exporter.getFinishedSpans();
    const [run] = named(spans, "agentcage.run");
    expect(run?.attributes).toMatchObject({
      "agentcage.run.id": outcome.runId,
      "agentcage.cli": "claude",
      "agentcage.network.policy": "declared",
      "agentcage.outcome.ok": true,
      "agentcage.outcome.reason": "completed",
      "agentcage.exit.code": 0,
    });
    expect(run?.attributes["gen_ai.usage.output_tokens"]).toBeTypeOf("number");
    // The wait for the runtime's slot is a queue step when it took a millisecond or more.
    const steps = spans.filter((span) => span !== run && span.name !== "agentcage.queue").map((span) => span.name);
    expect(steps).toEqual(["agentcage.create", "agentcage.start", "agentcage.stream", "agentcage.remove"]);
    for (const span of spans.filter((span) => span !== run)) {
      expect(parentOf(span)).toBe(run?.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(run?.spanContext().traceId);
    }
  });

  it("are children of the caller's span its traceparent names, with its queue wait first", async () => {
    const queuedSince = Date.now() - 1500;
    await runOnce({ traceContext: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, queuedSince } });
    const spans = exporter.getFinishedSpans();
    const [run] = named(spans, "agentcage.run");
    expect(run?.spanContext().traceId).toBe(CALLER_TRACE);
    expect(parentOf(run as ReadableSpan)).toBe(CALLER_SPAN);
    const [queue] = named(spans, "agentcage.queue");
    expect(parentOf(queue as ReadableSpan)).toBe(run?.spanContext().spanId);
    const queuedMs = (queue?.duration[0] ?? 0) * 1000 + (queue?.duration[1] ?? 0) / 1e6;
    expect(queuedMs).toBeGreaterThanOrEqual(1400);
  });

  it.each([
    ["an all-zero trace id", `00-${"0".repeat(32)}-${CALLER_SPAN}-01`],
    ["version ff", `ff-${CALLER_TRACE}-${CALLER_SPAN}-01`],
    ["upper-case hex", `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01`],
    ["a field too many for version 00", `00-${CALLER_TRACE}-${CALLER_SPAN}-01-extra`],
    ["not a string", 42],
  ])("ignore a traceparent with %s: a trace of their own, and the Run goes on", async (_what, traceparent) => {
    const outcome = await runOnce({ traceContext: { traceparent } as never });
    expect(outcome.ok).toBe(true);
    const [run] = named(exporter.getFinishedSpans(), "agentcage.run");
    expect(run?.spanContext().traceId).not.toBe(CALLER_TRACE);
    expect(run?.spanContext().traceId).not.toBe("0".repeat(32));
    expect(parentOf(run as ReadableSpan)).toBeUndefined();
  });

  it("take a later version's traceparent, whose extra fields are ignored", async () => {
    await runOnce({ traceContext: { traceparent: `01-${CALLER_TRACE}-${CALLER_SPAN}-01-what-comes-next` } });
    const [run] = named(exporter.getFinishedSpans(), "agentcage.run");
    expect(run?.spanContext().traceId).toBe(CALLER_TRACE);
  });

  it("never carry the prompt or the key, in a name, an attribute, an event or a status", async () => {
    const outcome = await runOnce({}, `Say ${CANARY} back to me`);
    expect(outcome.runId).toMatch(/^[0-9a-f]{16}$/);
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThanOrEqual(5);
    const seen = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, resource: span.resource.attributes })),
    );
    expect(seen).toContain("agentcage.run");
    expect(seen).not.toContain(CANARY);
    expect(seen).not.toContain("canary");
  });
});

describe("a proxied Run's spans", () => {
  const call = {
    startedAt: Date.now() - 2000,
    endedAt: Date.now() - 1000,
    status: 200,
    model: "claude-sonnet-4-5-20250929",
    inputTokens: 21,
    outputTokens: 9,
    costUsd: 0.0002,
  };
  const meter: RunMeter = {
    runId: "",
    provider: "anthropic",
    turns: 1,
    requests: 1,
    refused: 0,
    usage: { inputTokens: 21, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 },
    tokens: 30,
    costUsd: 0.0002,
    costFrom: "price_table",
    models: [call.model],
    calls: [call],
  };
  // The proxy as the runner sees it: it takes the Run, binds its network, and its meter at revoke lists one model call.
  const gateway = {
    container: "agentcage-egress-fake",
    alias: "egress",
    port: 8751,
    close: async () => undefined,
    eventsOpen: async () => undefined,
    onBreach: () => undefined,
    register: async () => ({ token: "agentcage-run-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHI" }),
    bind: async () => true,
    meter: async () => meter,
    revoke: async () => meter,
  } as unknown as EgressGateway;

  it("have a CLIENT child per model call the proxy metered, and the proxy's tokens and cost; the Outcome's meter lists no calls", async () => {
    const engine = createFakeEngine({ stdout: [claudePlain] });
    const runner = createAgentRunner({
      image: "agent:1",
      environment: { ANTHROPIC_API_KEY: CANARY },
      networkPolicy: "model",
      egress: gateway,
      logger: silent,
      engine,
    });
    const outcome = await runner.run({ cli: "claude" }, `Say ${CANARY}`);
    expect(outcome).toMatchObject({ ok: true, network: { policy: "model", meter: { turns: 1 } } });
    expect(outcome.network?.meter).not.toHaveProperty("calls");
    const spans = exporter.getFinishedSpans();
    const [run] = named(spans, "agentcage.run");
    expect(run?.attributes).toMatchObject({
      "agentcage.network.policy": "model",
      "gen_ai.usage.input_tokens": 21,
      "gen_ai.usage.output_tokens": 9,
      "agentcage.cost_usd": 0.0002,
    });
    const [modelCall] = named(spans, "agentcage.model_call");
    expect(parentOf(modelCall as ReadableSpan)).toBe(run?.spanContext().spanId);
    expect(modelCall?.attributes).toMatchObject({ "http.response.status_code": 200, "gen_ai.response.model": call.model, "gen_ai.usage.output_tokens": 9 });
    expect(modelCall?.duration).toEqual([1, 0]);
    expect(JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events, span.status]))).not.toContain(CANARY);
  });
});
