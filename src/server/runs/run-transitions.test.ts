// What a Run's record says it used, from its Outcome: the proxy's meter first (the provider's own
// counts), else the CLI's result, else (a Run stopped at its budget, whose CLI reported nothing) what
// the live guard counted, else its tokens at the price table. A cost left out here is a cost the daily spend quota never sees.

import { describe, expect, it } from "vitest";
import { usageOf } from "./run-transitions.js";

describe("usageOf", () => {
  it("takes the proxy's meter over the CLI's own figures", () => {
    const outcome = {
      result: { usage: { inputTokens: 1, outputTokens: 2 }, costUsd: 0.5 },
      network: { policy: "model", meter: { usage: { inputTokens: 10, outputTokens: 20 }, costUsd: 0.75 } },
    };
    expect(usageOf(outcome)).toEqual({ inputTokens: 10, outputTokens: 20, costUsd: 0.75 });
  });

  it("takes the CLI's figures when nothing metered the Run", () => {
    expect(usageOf({ result: { usage: { inputTokens: 3, outputTokens: 4 }, costUsd: 0.01 } })).toEqual({ inputTokens: 3, outputTokens: 4, costUsd: 0.01 });
  });

  it("counts what the budget's guard counted for a Run stopped at its budget with no result of its own", () => {
    const stopped = {
      reason: "budget_exceeded",
      budget: { caps: { maxTurns: 3 }, used: { turns: 3, tokens: 5_000, cachedTokens: 0, costUsd: 0.11196, wallSeconds: 4 } },
    };
    expect(usageOf(stopped)).toEqual({ costUsd: 0.11196 });
  });

  it("prices a codex Run's tokens at the price table when nothing else gave its cost (codex reports none, and no budget counted it)", () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(usageOf({ cli: "codex", reason: "completed", result: { usage, model: "gpt-5" } })).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      costUsd: 2.25,
    });
  });

  it("says nothing of a Run that used nothing it could count", () => {
    expect(usageOf({ reason: "cancelled" })).toBeUndefined();
  });
});
