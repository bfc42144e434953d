import { describe, expect, it } from "vitest";
import { createBudgetMeter } from "./budget.js";
import { costOf, priceOf } from "../plan/index.js";
import type { AgentUsage } from "./index.js";

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0): AgentUsage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: cacheWrite,
});

describe("a budget meter", () => {
  it("passes maxTurns on the turn after the last one allowed, once", () => {
    const meter = createBudgetMeter("codex", { maxTurns: 2 }, 0);
    expect(meter.observe({ type: "turn", number: 1 }, 10)).toBeUndefined();
    expect(meter.observe({ type: "turn", number: 2 }, 20)).toBeUndefined();
    expect(meter.observe({ type: "turn", number: 3 }, 30)).toMatchObject({
      cap: "maxTurns",
      limit: 2,
      used: 3,
      message: "the Run passed its budget's maxTurns (3 turns of 2 turns); it was stopped with what it had so far",
    });
    expect(meter.observe({ type: "turn", number: 4 }, 40)).toBeUndefined();
  });

  it("counts input and output tokens, not the cached ones, against maxTokens", () => {
    const meter = createBudgetMeter("claude", { maxTokens: 100 }, 0);
    expect(meter.observe({ type: "usage", usage: usage(50, 40, 10_000, 5_000) }, 0)).toBeUndefined();
    expect(meter.used(0)).toMatchObject({ tokens: 90, cachedTokens: 15_000 });
    expect(meter.observe({ type: "usage", usage: usage(60, 41) }, 0)).toMatchObject({ cap: "maxTokens", used: 101 });
  });

  it("prices tokens by the model from the table, by the dearest entry when the model is unknown, and takes the CLI's own cost when it reports one", () => {
    const sonnet = createBudgetMeter("claude", { maxCostUsd: 1 }, 0, "claude-sonnet-4-5");
    sonnet.observe({ type: "usage", usage: usage(1_000_000, 0) }, 0);
    expect(sonnet.used(0)).toMatchObject({ costUsd: 3, costFrom: "price_table" });
    const unknown = createBudgetMeter("claude", { maxCostUsd: 1 }, 0);
    unknown.observe({ type: "init", model: "claude-next-7" }, 0);
    const breach = unknown.observe({ type: "usage", usage: usage(0, 100_000) }, 0);
    expect(unknown.used(0)).toMatchObject({ costUsd: 7.5, costFrom: "dearest_price" });
    expect(breach?.message).toContain('priced at claude\'s dearest model since "claude-next-7" is not in the price table');
    const reported = createBudgetMeter("claude", { maxCostUsd: 1 }, 0, "sonnet");
    reported.observe({ type: "result", result: { ok: true, reason: "completed", costUsd: 0.25, usage: usage(1_000_000, 0) } }, 0);
    expect(reported.used(0)).toMatchObject({ costUsd: 0.25, costFrom: "cli" });
  });

  it("passes maxWallSeconds on the clock alone, and keeps what the agent said last for a partial answer", () => {
    const meter = createBudgetMeter("claude", { maxWallSeconds: 5 }, 1_000);
    meter.observe({ type: "init", sessionId: "s-1" }, 1_000);
    meter.observe({ type: "assistant_text", text: "half done" }, 2_000);
    expect(meter.tick(6_000)).toBeUndefined();
    expect(meter.tick(7_000)).toMatchObject({ cap: "maxWallSeconds", used: 6 });
    expect(meter.partial()).toEqual({ text: "half done", sessionId: "s-1" });
  });
});

describe("the price table", () => {
  it("knows the models by prefix, longest first", () => {
    expect(priceOf("anthropic", "claude-opus-4-5-20251101").price.output).toBe(25);
    expect(priceOf("anthropic", "claude-opus-4-1").price.output).toBe(75);
    expect(priceOf("openai", "gpt-5-mini").price.input).toBe(0.25);
    expect(priceOf("openai", "gpt-5.5").known).toBe(true);
    // An alias at the model the pinned claude resolves it to (sonnet: claude-sonnet-5-5).
    expect(costOf(usage(1_000_000, 1_000_000, 1_000_000, 1_000_000), priceOf("anthropic", "sonnet").price)).toBeCloseTo(2 + 10 + 0.1 + 2.5);
  });
});
