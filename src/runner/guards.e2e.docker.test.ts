// The live guards with the real claude and codex CLIs against the stand-in. Its `max_turns`
// scenario asks for one more tool call forever: each budget cap stops the Run as budget_exceeded,
// naming the cap, with the usage and session so far. Its `hang` scenario never answers, and the
// CLI waits in silence: the watchdog ends the Run as stalled. No container is left.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, type AgentEvent, type AgentOutcome, type AgentRequestInput, type AgentRunner } from "../index.js";
import { containersOfRun } from "../../test/support/engine.js";
import { loopText } from "../../test/stand-in/index.js";
import { AGENT_IMAGE, standInRunnerOptions, startStandInModel, type RunningStandIn } from "../../test/support/stand-in-container.js";

let standIn: RunningStandIn;
let runner: AgentRunner;

beforeAll(async () => {
  standIn = await startStandInModel("max_turns");
  runner = createAgentRunner({ image: AGENT_IMAGE, apiRetries: 0, ...standInRunnerOptions(standIn) });
}, 60_000);
afterAll(async () => standIn?.stop());

async function run(request: AgentRequestInput, prompt = "Keep going."): Promise<{ outcome: AgentOutcome; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const outcome = await runner.run({ timeoutSeconds: 120, maxTurns: 50, ...request }, prompt, { onEvent: (event) => events.push(event) });
  expect(containersOfRun(outcome.runId)).toEqual([]);
  return { outcome, events };
}

describe("a budget stops a runaway agent", () => {
  it("on turns (claude), with the usage and session so far", async () => {
    const { outcome, events } = await run({ cli: "claude", budget: { maxTurns: 2 } });
    expect(outcome).toMatchObject({ ok: false, reason: "budget_exceeded", budget: { caps: { maxTurns: 2 }, exceeded: "maxTurns" } });
    expect(outcome.error).toContain("the Run passed its budget's maxTurns (3 turns of 2 turns)");
    // What the agent printed while it was being killed is read too (stopping never drops its
    // stdout), so turns past the breach may be counted: how many is how fast the engine's kill
    // lands against how fast the stand-in answers (on an idle machine none or one, on a loaded one
    // two were seen). Spending held exactly is the egress proxy's, at the source (the model policy).
    const turns = outcome.budget?.used.turns ?? 0;
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(turns).toBeLessThanOrEqual(3 + 3);
    expect(outcome.result?.usage?.inputTokens).toBeGreaterThan(0);
    expect(outcome.result?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // The answer so far: what the agent said by the turn the Run was stopped at.
    expect(outcome.result?.text).toBe(loopText(turns));
    expect(events.filter((e) => e.type === "tool_call").length).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => e.type === "budget")).toBe(true);
  }, 120_000);

  it("on tokens (claude)", async () => {
    const { outcome } = await run({ cli: "claude", budget: { maxTokens: 50 } });
    expect(outcome).toMatchObject({ reason: "budget_exceeded", budget: { exceeded: "maxTokens" } });
    expect(outcome.budget?.used.tokens).toBeGreaterThan(50);
    expect(outcome.error).toContain("maxTokens");
    expect(outcome.result?.text).toMatch(/^Loop turn \d+: checking once more\.$/);
    expect(outcome.result?.usage?.inputTokens).toBeGreaterThan(0);
  }, 120_000);

  it("on cost (claude), priced from the table for its model or stopped by claude's own --max-budget-usd, whichever sees it first", async () => {
    const { outcome } = await run({ cli: "claude", budget: { maxCostUsd: 0.05 } });
    expect(outcome).toMatchObject({ reason: "budget_exceeded", budget: { exceeded: "maxCostUsd" } });
    expect(outcome.budget?.used.costUsd).toBeGreaterThan(0.05);
    expect(outcome.result?.text).toMatch(/^Loop turn \d+: checking once more\.$/);
    expect(outcome.result?.usage?.inputTokens).toBeGreaterThan(0);
    // The table prices claude's model as claude does (src/plan/prices.ts), so its own backstop may stop it at the same call.
    expect(["price_table", "dearest_price", "cli"]).toContain(outcome.budget?.used.costFrom);
  }, 120_000);

  it("passes claude its own --max-budget-usd as a backstop, which the pinned CLI takes: a Run within it completes", async () => {
    const request = { cli: "claude", budget: { maxCostUsd: 1 } } as const;
    const { outcome } = await run(request, "[stand-in:plain] What is the capital of France?");
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, reason: "completed", budget: { caps: { maxCostUsd: 1 } } });
    const words = (await runner.commandFor({ timeoutSeconds: 120, maxTurns: 50, ...request }, "hi")).args;
    expect(words.slice(words.indexOf("--max-budget-usd"), words.indexOf("--max-budget-usd") + 2)).toEqual(["--max-budget-usd", "1"]);
  }, 120_000);

  it("on turns (codex), counted from the items it completes", async () => {
    const { outcome } = await run({ cli: "codex", model: "gpt-5.5", budget: { maxTurns: 3 } });
    expect(outcome).toMatchObject({ ok: false, reason: "budget_exceeded", budget: { exceeded: "maxTurns" } });
    // Breached at the 4th; items codex completed while it was being killed are counted too (see claude's).
    expect(outcome.budget?.used.turns).toBeGreaterThanOrEqual(4);
    expect(outcome.budget?.used.turns).toBeLessThanOrEqual(4 + 3);
    expect(outcome.result?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  }, 120_000);

  it("on the request's maxTurns (codex), which codex has no flag for: budget_exceeded, killed from its stream", async () => {
    const started = performance.now();
    const { outcome, events } = await run({ cli: "codex", model: "gpt-5.5", maxTurns: 3, timeoutSeconds: 60 });
    const tookMs = performance.now() - started;
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: false, reason: "budget_exceeded", budget: { caps: { maxTurns: 3 }, exceeded: "maxTurns" } });
    // One past the cap on an idle machine; a few more only when the kill lands late on a loaded one.
    expect(outcome.budget?.used.turns).toBeGreaterThanOrEqual(4);
    expect(outcome.budget?.used.turns).toBeLessThanOrEqual(4 + 3);
    expect(events.filter((e) => e.type === "tool_call").length).toBeLessThanOrEqual(5 + 3);
    // 2.9 s on an idle machine (from the test's start to its Outcome); three times that, far from its timeout.
    expect(tookMs).toBeLessThan(9_000);
  }, 120_000);

  it("reports what a Run within its budget spent", async () => {
    const { outcome } = await run({ cli: "claude", maxTurns: 2, budget: { maxTurns: 10, maxTokens: 1_000_000 } });
    expect(outcome.reason).not.toBe("budget_exceeded");
    expect(outcome.budget).toMatchObject({ caps: { maxTurns: 10, maxTokens: 1_000_000 } });
    expect(outcome.budget?.exceeded).toBeUndefined();
  }, 120_000);
});

// Both CLIs at once: each waits out its own stallSeconds, a watch of its own container's output and CPU.
describe.concurrent("the watchdog stops a CLI that waits in silence", () => {
  it.for(["claude", "codex"] as const)(
    "%s, waiting on a model that never answers, ends stalled after stallSeconds, with a warning at half and its last event",
    { timeout: 120_000 },
    async (cli, { expect }) => {
      const started = performance.now();
      const { outcome, events } = await run({ cli, ...(cli === "codex" ? { model: "gpt-5.5" } : {}), stallSeconds: 4 }, "[stand-in:hang] answer slowly");
      const tookMs = performance.now() - started;
      expect(outcome).toMatchObject({ ok: false, reason: "stalled" });
      // claude keeps its CPU busy for a few seconds after its last line (its start-up), so its silence
      // and its idleness can differ: "printed nothing for 9 s and used no CPU for the last 4 s".
      expect(outcome.error).toMatch(/printed nothing (for \d+ s )?and used no CPU/);
      expect(outcome.error).toContain("the last event it printed: init");
      expect(events.some((e) => e.type === "stall_warning")).toBe(true);
      // The CLI's start-up, stallSeconds of idleness, a sampling interval late at most, and the stop:
      // about 7 s (codex) and 9.5 s (claude) with both cores busy; three times 10 s is the bound.
      expect(tookMs).toBeLessThan(3 * 10_000);
    },
  );
});
