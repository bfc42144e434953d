// One Run's meter and budget: model calls are counted when they are forwarded, tokens and cost
// when the provider's answer says so, and the first cap passed is the breach. A call in flight
// holds a reservation of its worst case (reservation.ts) until its answer settles it, and a call
// that the reservations in flight would carry past a cap waits for them, so calls made at once
// pass a cap by one call's worth at most, as maxTurns does. Pure: no I/O. Invariant: once
// breached, every later model call is refused, and the breach is reported exactly once.

import { costOf, priceOf } from "../plan/index.js";
import type { EgressBreach, EgressBudget, EgressCap, EgressCli, EgressUsage, RunMeter } from "./run.js";

/** What one response said it used, and which model answered. */
export type ResponseUsage = { readonly usage: EgressUsage; readonly model?: string };

/** The most a model call may use, held against the caps while it is in flight. */
export type Reservation = { readonly tokens: number; readonly costUsd: number };

export type Admission =
  /** `fresh` is true the first time that breach is known. */
  | { readonly kind: "refused"; readonly refused: EgressBreach; readonly fresh: boolean }
  /** Calls in flight could spend what is left: call again once one settles (`settled()`). */
  | { readonly kind: "wait" }
  /** Counted as a turn; `settle` folds in what the answer used (or nothing) and frees the reservation, once. */
  | { readonly kind: "admitted"; readonly settle: Settle };

/** Folds in what an admitted call's answer used (or nothing) and frees its reservation; answers a breach it caused. */
export type Settle = (response: ResponseUsage | undefined) => EgressBreach | undefined;

export type Meter = {
  /** Before forwarding a model call: refused past a cap, told to wait while reservations could carry it past one, else admitted. */
  readonly admit: (reservation?: Reservation) => Admission;
  /** Resolves when the next admitted call settles. */
  readonly settled: () => Promise<void>;
  /** Counts a request forwarded that is not a model call (count_tokens, models). */
  readonly countRequest: () => void;
  readonly countRefused: () => void;
  /** Folds in one response's usage; returns the breach when this response passed a cap (once). */
  readonly add: (response: ResponseUsage) => EgressBreach | undefined;
  /** Calls admitted and not yet settled. */
  readonly inFlight: () => number;
  /** A byte of an answer streamed to the agent now. */
  readonly streamed: () => void;
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

  const reserved = { tokens: 0, costUsd: 0, calls: 0 };
  let lastByteAt: number | undefined;
  let waiters: (() => void)[] = [];
  // Past a cap only if the calls in flight spend their worst: then a new call waits for them.
  const wouldPass = (): boolean =>
    reserved.calls > 0 &&
    ((budget.maxTokens !== undefined && usage.inputTokens + usage.outputTokens + reserved.tokens >= budget.maxTokens) ||
      (budget.maxCostUsd !== undefined && costUsd + reserved.costUsd >= budget.maxCostUsd));

  const add = (response: ResponseUsage): EgressBreach | undefined => {
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
  };

  return {
    admit: (reservation = { tokens: 0, costUsd: 0 }) => {
      if (breach !== undefined) return { kind: "refused", refused: breach, fresh: false };
      if (budget.maxTurns !== undefined && turns >= budget.maxTurns) {
        breach = breachOf("maxTurns", turns + 1);
        return { kind: "refused", refused: breach, fresh: true };
      }
      if (wouldPass()) return { kind: "wait" };
      turns += 1;
      requests += 1;
      reserved.tokens += reservation.tokens;
      reserved.costUsd += reservation.costUsd;
      reserved.calls += 1;
      let open = true;
      return {
        kind: "admitted",
        settle: (response) => {
          if (!open) return undefined;
          open = false;
          reserved.tokens -= reservation.tokens;
          reserved.costUsd -= reservation.costUsd;
          reserved.calls -= 1;
          const passed = response === undefined ? undefined : add(response);
          const woken = waiters;
          waiters = [];
          for (const wake of woken) wake();
          return passed;
        },
      };
    },
    settled: () => new Promise<void>((resolve) => waiters.push(resolve)),
    inFlight: () => reserved.calls,
    streamed: () => {
      lastByteAt = Date.now();
    },
    countRequest: () => {
      requests += 1;
    },
    countRefused: () => {
      refused += 1;
    },
    add,
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
      ...(lastByteAt === undefined ? {} : { lastByteAt }),
    }),
  };
}
