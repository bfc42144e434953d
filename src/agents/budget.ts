// A Run's budget, watched live: the typed events fold into what was spent (turns, tokens, cost,
// wall time), and the first cap passed is the breach that stops the Run as budget_exceeded. Pure:
// the runner feeds it events and the clock. Until an egress proxy meters the API itself, the
// stream is the meter: claude reports tokens per response; codex reports tokens only at the end of
// its run, so a codex token or dollar cap is refused unless the proxy holds it (unheldCaps).

import { costOf, priceOf } from "../plan/index.js";
import type { AgentBudget, AgentEvent, AgentUsage, BudgetCap, BudgetUse } from "./adapter/index.js";
import { adapterFor, type AgentCli } from "./adapters.js";

/**
 * The request's caps that cannot be held where the Run goes, as the refusal that says so: a CLI that
 * prints its tokens only when it ends (codex) has its maxTokens and maxCostUsd held only behind the
 * egress proxy, which meters every call. `where` is the Run's network policy, or "declared" (networks by hand).
 */
export function unheldCaps(
  cli: AgentCli,
  caps: { readonly [cap in BudgetCap]?: number | undefined } | undefined,
  where: "none" | "open" | "declared" | "model" | "allowlist",
): string | undefined {
  if (adapterFor(cli).reportsTokensLive || caps === undefined || where === "model" || where === "allowlist") return undefined;
  const unheld = (["maxTokens", "maxCostUsd"] as const).filter((cap) => caps[cap] !== undefined).map((cap) => `budget.${cap} ${JSON.stringify(caps[cap])}`);
  if (unheld.length === 0) return undefined;
  return (
    `${unheld.join(" and ")} cannot be held for ${cli} under ${where === "declared" ? "networks declared by hand" : `network policy ${JSON.stringify(where)}`}: ` +
    `${cli} prints its tokens only when it ends, so only the egress proxy of the networkPolicy "model" or "allowlist" meters them while it runs; use one of those, or leave the cap${unheld.length === 1 ? "" : "s"} out`
  );
}

export type Breach = { readonly cap: BudgetCap; readonly limit: number; readonly used: number; readonly message: string };

export type BudgetMeter = {
  /** Folds one event in; returns the breach when this event passed a cap (once). */
  readonly observe: (event: AgentEvent, now: number) => Breach | undefined;
  /** Checks the wall clock alone. */
  readonly tick: (now: number) => Breach | undefined;
  readonly used: (now: number) => BudgetUse;
  /** What the agent said last, its session and usage: the partial answer of a stopped Run. */
  readonly partial: () => { readonly text?: string; readonly sessionId?: string; readonly usage?: AgentUsage };
};

export function createBudgetMeter(cli: AgentCli, caps: AgentBudget, startedAt: number, requestedModel?: string): BudgetMeter {
  let turns = 0;
  let usage: AgentUsage | undefined;
  let cliCost: number | undefined;
  let model = requestedModel;
  let text: string | undefined;
  let sessionId: string | undefined;
  let breached = false;

  const used = (now: number): BudgetUse => {
    const tokens = usage === undefined ? 0 : usage.inputTokens + usage.outputTokens;
    const cachedTokens = usage === undefined ? 0 : usage.cacheReadTokens + usage.cacheWriteTokens;
    const priced = priceOf(adapterFor(cli).modelProvider, model);
    const cost = cliCost ?? (usage === undefined ? undefined : costOf(usage, priced.price));
    return {
      turns,
      tokens,
      cachedTokens,
      ...(cost === undefined ? {} : { costUsd: cost, costFrom: cliCost !== undefined ? "cli" : priced.known ? "price_table" : "dearest_price" }),
      wallSeconds: Math.floor((now - startedAt) / 1000),
    };
  };

  const check = (now: number): Breach | undefined => {
    if (breached) return undefined;
    const u = used(now);
    const over = (cap: BudgetCap, value: number, unit: (n: number) => string): Breach | undefined => {
      const limit = caps[cap];
      if (limit === undefined || value <= limit) return undefined;
      breached = true;
      return {
        cap,
        limit,
        used: value,
        message: `the Run passed its budget's ${cap} (${unit(value)} of ${unit(limit)}); it was stopped with what it had so far`,
      };
    };
    const costNote =
      u.costFrom === "dearest_price" ? `, priced at ${cli}'s dearest model since ${JSON.stringify(model ?? "its model")} is not in the price table` : "";
    return (
      over("maxTurns", u.turns, (n) => `${n} turn${n === 1 ? "" : "s"}`) ??
      over("maxTokens", u.tokens, (n) => `${n.toLocaleString("en-US")} tokens`) ??
      over("maxCostUsd", u.costUsd ?? 0, (n) => `$${n.toFixed(4)}${n === u.costUsd ? costNote : ""}`) ??
      over("maxWallSeconds", u.wallSeconds, (n) => `${n} s`)
    );
  };

  return {
    observe: (event, now) => {
      switch (event.type) {
        case "init":
          model = event.model ?? model;
          sessionId = event.sessionId ?? sessionId;
          break;
        case "turn":
          turns = Math.max(turns, event.number);
          break;
        case "usage":
          usage = event.usage;
          break;
        case "assistant_text":
          if (event.text.trim() !== "") text = event.text;
          break;
        case "result":
          usage = event.result.usage ?? usage;
          cliCost = event.result.costUsd ?? cliCost;
          sessionId = event.result.sessionId ?? sessionId;
          text = event.result.text ?? text;
          break;
        default:
          break;
      }
      return check(now);
    },
    tick: (now) => check(now),
    used,
    partial: () => ({ ...(text === undefined ? {} : { text }), ...(sessionId === undefined ? {} : { sessionId }), ...(usage === undefined ? {} : { usage }) }),
  };
}
