import { describe, expect, it } from "vitest";
import { EarlyEnd } from "../runtime/index.js";
import { createRunGuard } from "./guard.js";
import { parseAgentRequest } from "./request.js";

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
});
