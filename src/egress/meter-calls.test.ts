// The meter lists each settled model call (times, status, model, counts) for a span per call, and
// stops listing at MAX_METERED_CALLS while it goes on counting.

import { describe, expect, it } from "vitest";
import { MAX_METERED_CALLS } from "./limits.js";
import { createMeter } from "./meter.js";

const used = { usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, model: "claude-sonnet-4-5-20250929" };

describe("the meter's calls", () => {
  it("say each settled call's times, status, model, tokens and cost", () => {
    const meter = createMeter("0123456789abcdef", "anthropic");
    const before = Date.now();
    const first = meter.admit();
    const second = meter.admit();
    if (first.kind !== "admitted" || second.kind !== "admitted") throw new Error("not admitted");
    first.settle(used, 200);
    second.settle(undefined, 529);
    const { calls } = meter.reading();
    expect(calls).toHaveLength(2);
    expect(calls?.[0]).toMatchObject({ status: 200, model: used.model, inputTokens: 10, outputTokens: 5 });
    expect(calls?.[0]?.costUsd).toBeGreaterThan(0);
    expect(calls?.[0]?.startedAt).toBeGreaterThanOrEqual(before);
    expect(calls?.[0]?.endedAt).toBeGreaterThanOrEqual(calls?.[0]?.startedAt ?? Number.POSITIVE_INFINITY);
    expect(calls?.[1]).toEqual({ startedAt: expect.any(Number), endedAt: expect.any(Number), status: 529, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  });

  it(`list the first ${MAX_METERED_CALLS} and count them all`, () => {
    const meter = createMeter("0123456789abcdef", "anthropic");
    for (let i = 0; i <= MAX_METERED_CALLS; i += 1) {
      const admission = meter.admit();
      if (admission.kind === "admitted") admission.settle(used, 200);
    }
    expect(meter.reading().calls).toHaveLength(MAX_METERED_CALLS);
    expect(meter.reading().turns).toBe(MAX_METERED_CALLS + 1);
  });
});
