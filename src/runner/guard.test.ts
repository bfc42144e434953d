// The guard's decisions without a Run: which caps hold a request (codex's maxTurns is one), and
// how a Run the CLI stopped at its own cap ends (claude's --max-budget-usd is budget_exceeded).

import { describe, expect, it } from "vitest";
import { EarlyEnd } from "../runtime/index.js";
import { createRunGuard } from "./guard.js";
import { parseAgentRequest } from "../agents/index.js";

describe("a Run's guard", () => {
  it("holds codex to the request's maxTurns, which codex has no flag for, as a budget cap", () => {
    const guard = createRunGuard(parseAgentRequest({ cli: "codex", maxTurns: 3 }), undefined, () => 0);
    for (const number of [1, 2, 3]) guard.watch({ type: "turn", number });
    expect(guard.signal.aborted).toBe(false);
    guard.watch({ type: "turn", number: 4 });
    expect(guard.signal.aborted).toBe(true);
    expect(guard.signal.reason).toBeInstanceOf(EarlyEnd);
    expect((guard.signal.reason as EarlyEnd).why).toBe("budget_exceeded");
    expect(guard.finish("budget_exceeded", undefined).budget).toMatchObject({ caps: { maxTurns: 3 }, exceeded: "maxTurns", used: { turns: 4 } });
    guard.dispose();
  });

  it("holds codex's maxTurns quietly when no budget was asked: no budget event and no outcome.budget until it is passed", () => {
    const guard = createRunGuard(parseAgentRequest({ cli: "codex", maxTurns: 3 }), undefined, () => 0);
    const told = [1, 2, 3].flatMap((number) => guard.watch({ type: "turn", number }));
    expect(told).toEqual([]);
    expect(guard.finish("completed", undefined).budget).toBeUndefined();
    // A stalled Run still keeps what the agent said so far, budget or not.
    guard.watch({ type: "assistant_text", text: "half an answer" });
    expect(guard.finish("stalled", undefined)).toMatchObject({ reason: "stalled", result: { text: "half an answer" } });
    expect(guard.finish("stalled", undefined).budget).toBeUndefined();
    // Passed, it is in play: one budget event says so, and the Outcome names the cap.
    expect(guard.watch({ type: "turn", number: 4 })).toMatchObject([{ type: "budget", caps: { maxTurns: 3 }, used: { turns: 4 } }]);
    expect(guard.finish("budget_exceeded", undefined).budget).toMatchObject({ caps: { maxTurns: 3 }, exceeded: "maxTurns" });
    guard.dispose();
  });

  it("reports a budget the request set, with codex's maxTurns among its caps", () => {
    const guard = createRunGuard(parseAgentRequest({ cli: "codex", maxTurns: 3, budget: { maxWallSeconds: 600 } }), undefined, () => 0);
    expect(guard.watch({ type: "turn", number: 1 })).toMatchObject([{ type: "budget", caps: { maxTurns: 3, maxWallSeconds: 600 } }]);
    expect(guard.finish("completed", undefined).budget).toMatchObject({ caps: { maxTurns: 3, maxWallSeconds: 600 } });
    guard.dispose();
  });

  it("takes the lower of the request's maxTurns and the budget's for codex, and none for maxTurns 0", () => {
    const lower = createRunGuard(parseAgentRequest({ cli: "codex", maxTurns: 3, budget: { maxTurns: 2 } }), undefined, () => 0);
    expect(lower.finish("completed", undefined).budget?.caps).toEqual({ maxTurns: 2 });
    const none = createRunGuard(parseAgentRequest({ cli: "codex", maxTurns: 0 }), undefined, () => 0);
    expect(none.finish("completed", undefined).budget).toBeUndefined();
  });

  it("leaves claude's maxTurns to claude's own --max-turns", () => {
    const guard = createRunGuard(parseAgentRequest({ cli: "claude", maxTurns: 3 }), undefined, () => 0);
    for (const number of [1, 2, 3, 4, 5]) guard.watch({ type: "turn", number });
    expect(guard.signal.aborted).toBe(false);
    expect(guard.finish("completed", undefined).budget).toBeUndefined();
  });

  it("ends a Run that claude stopped at its own --max-budget-usd as budget_exceeded, passing maxCostUsd", () => {
    const guard = createRunGuard(parseAgentRequest({ cli: "claude", budget: { maxCostUsd: 0.01 } }), undefined, () => 0);
    const stopped = { ok: false, reason: "budget_exceeded", retryable: false, error: "Reached maximum budget ($0.01)", costUsd: 0.011676 } as const;
    guard.watch({ type: "result", result: stopped });
    expect(guard.finish("failed", stopped)).toMatchObject({
      reason: "budget_exceeded",
      budget: { caps: { maxCostUsd: 0.01 }, exceeded: "maxCostUsd", used: { costUsd: 0.011676, costFrom: "cli" } },
      result: stopped,
    });
    expect(guard.finish("failed", { ok: false, reason: "api_error", error: "boom" }).reason).toBe("failed");
  });
});
