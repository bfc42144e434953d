// One Run's meter and budget: model calls are counted when they are forwarded, tokens and cost
// when the provider's answer says so, and the first cap passed is the breach. Pure: the proxy
// calls it; it does no I/O. Invariant: once breached, every later model call is refused, and the
// breach is reported exactly once.

import { costOf, priceOf } from "../plan/index.js";
import type { EgressBreach, EgressBudget, EgressCap, EgressCli, EgressUsage, RunMeter } from "./run.js";

/** What one response said it used, and which model answered. */
export type ResponseUsage = { readonly usage: EgressUsage; readonly model?: string };

export type Meter = {
  /** Before forwarding a model call: the breach that refuses it, else counts the call. `fresh` is true the first time that breach is known. */
  readonly startModelCall: () => { readonly refused: EgressBreach; readonly fresh: boolean } | undefined;
  /** Counts a request forwarded that is not a model call (count_tokens, models). */
  readonly countRequest: () => void;
  readonly countRefused: () => void;
  /** Folds in one response's usage; returns the breach when this response passed a cap (once). */
  readonly add: (response: ResponseUsage) => EgressBreach | undefined;
  readonly reading: () => RunMeter;
};

const ZERO: EgressUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function createMeter(runId: string, cli: EgressCli, budget: EgressBudget = {}): Meter {
  let turns = 0;
  let requests = 0;
  let refused = 0;
  let usage = ZERO;
  let costUsd = 0;
  let dearest = false;
  const models: string[] = [];
  let breach: EgressBreach | undefined;

  const breachOf = (cap: EgressCap, used: number): EgressBreach => {
    const limit = budget[cap] ?? 0;
    const unit = (n: number): string =>
      cap === "maxTurns" ? `${n} model call${n === 1 ? "" : "s"}` : cap === "maxTokens" ? `${n.toLocaleString("en-US")} tokens` : `$${n.toFixed(4)}`;
    const priced = cap === "maxCostUsd" && dearest ? `, some priced at ${cli}'s dearest model since the provider named one not in the price table` : "";
    return {
      runId,
      cap,
      limit,
      used,
      message: `the Run passed its budget's ${cap} (${unit(used)} of ${unit(limit)}${priced}); the egress proxy refuses its model calls from now on`,
    };
  };

  return {
    startModelCall: () => {
      if (breach !== undefined) return { refused: breach, fresh: false };
      if (budget.maxTurns !== undefined && turns >= budget.maxTurns) {
        breach = breachOf("maxTurns", turns + 1);
        return { refused: breach, fresh: true };
      }
      turns += 1;
      requests += 1;
      return undefined;
    },
    countRequest: () => {
      requests += 1;
    },
    countRefused: () => {
      refused += 1;
    },
    add: (response) => {
      const u = response.usage;
      usage = {
        inputTokens: usage.inputTokens + u.inputTokens,
        outputTokens: usage.outputTokens + u.outputTokens,
        cacheReadTokens: usage.cacheReadTokens + u.cacheReadTokens,
        cacheWriteTokens: usage.cacheWriteTokens + u.cacheWriteTokens,
      };
      const priced = priceOf(cli, response.model);
      dearest ||= !priced.known;
      costUsd += costOf(u, priced.price);
      if (response.model !== undefined && !models.includes(response.model)) models.push(response.model);
      if (breach !== undefined) return undefined;
      const tokens = usage.inputTokens + usage.outputTokens;
      if (budget.maxTokens !== undefined && tokens > budget.maxTokens) breach = breachOf("maxTokens", tokens);
      else if (budget.maxCostUsd !== undefined && costUsd > budget.maxCostUsd) breach = breachOf("maxCostUsd", costUsd);
      return breach;
    },
    reading: () => ({
      runId,
      cli,
      turns,
      requests,
      refused,
      usage,
      tokens: usage.inputTokens + usage.outputTokens,
      costUsd,
      costFrom: dearest ? "dearest_price" : "price_table",
      models: [...models],
      ...(breach === undefined ? {} : { breach }),
    }),
  };
}
