// The price table against what the pinned CLIs charge themselves: claude 2.1.332 prices each model of
// its own catalog (its pricing_tiers, per million tokens), and the egress proxy's meter must come to
// the same dollars for the same answer, or a Run would cost one thing here and another behind the proxy.

import { describe, expect, it } from "vitest";
import { costOf, priceOf } from "./prices.js";

/** The model ids claude 2.1.332 sends, and its list price for each: input, output, cache read, cache write (5 minutes). */
const CLAUDE_CATALOG: ReadonlyArray<readonly [string, number, number, number, number]> = [
  ["claude-opus-5-5", 4, 20, 0.2, 5],
  ["claude-opus-5", 5, 25, 0.5, 6.25],
  ["claude-opus-4-8", 5, 25, 0.5, 6.25],
  ["claude-opus-4-7", 5, 25, 0.5, 6.25],
  ["claude-opus-4-6", 5, 25, 0.5, 6.25],
  ["claude-opus-4-5-20251101", 5, 25, 0.5, 6.25],
  ["claude-opus-4-1-20250805", 15, 75, 1.5, 18.75],
  ["claude-opus-4-20250514", 15, 75, 1.5, 18.75],
  ["claude-sonnet-5-5", 2, 10, 0.1, 2.5],
  ["claude-sonnet-5", 2, 10, 0.2, 2.5],
  ["claude-sonnet-4-6", 3, 15, 0.3, 3.75],
  ["claude-sonnet-4-5-20250929", 3, 15, 0.3, 3.75],
  ["claude-sonnet-4-20250514", 3, 15, 0.3, 3.75],
  ["claude-3-7-sonnet-20250219", 3, 15, 0.3, 3.75],
  ["claude-3-5-sonnet-20241022", 3, 15, 0.3, 3.75],
  ["claude-haiku-5-5", 0.1, 0.5, 0.01, 0.125],
  ["claude-haiku-4-5-20251001", 1, 5, 0.1, 1.25],
  ["claude-3-5-haiku-20241022", 0.8, 4, 0.08, 1],
  ["claude-fable-5-2", 8, 40, 0.2, 10],
  ["claude-fable-5-1", 10, 50, 0.25, 12.5],
  ["claude-fable-5", 10, 50, 1, 12.5],
  ["claude-mythos-5-2", 8, 40, 0.2, 10],
  ["claude-mythos-5-1", 10, 50, 0.25, 12.5],
  ["claude-mythos-5", 10, 50, 1, 12.5],
];

describe("the price table", () => {
  it.each(CLAUDE_CATALOG)("prices %s as the pinned claude does", (model, input, output, cacheRead, cacheWrite) => {
    expect(priceOf("anthropic", model)).toEqual({ price: { input, output, cacheRead, cacheWrite }, known: true });
  });

  it("comes to claude's own cost for the stand-in's answer under claude's default model", () => {
    // What claude 2.1.332 reported (total_cost_usd) for the stand-in's plain answer: 21 in, 17 out, 3400 cache read, 1200 written.
    const usage = { inputTokens: 21, outputTokens: 17, cacheReadTokens: 3400, cacheWriteTokens: 1200 };
    expect(costOf(usage, priceOf("anthropic", "claude-opus-5-5").price)).toBeCloseTo(0.007104, 9);
  });

  it("prices a model it does not list at its provider's dearest entry, so a cap errs on the safe side", () => {
    expect(priceOf("anthropic", "claude-unheard-of-9")).toEqual({ price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }, known: false });
  });
});
