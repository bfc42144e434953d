// One Run's meter and budget: model calls are counted when they are forwarded, tokens and cost
// when the provider's answer says so, and the first cap passed is the breach. A call in flight
// holds a reservation of its worst case (reservation.ts) until its answer settles it, and a call
// that the reservations in flight would carry past a cap waits for them, so calls made at once
// pass a cap by one call's worth at most, as maxTurns does. Pure: no I/O. Invariant: once
// breached, every later model call is refused, and the breach is reported exactly once.

import { costOf, priceOf, type ModelProvider } from "../plan/index.js";
import { MAX_METERED_CALLS } from "./limits.js";
import type { EgressBreach, EgressBudget, EgressCap, EgressUsage, MeteredCall, RunMeter } from "./run.js";

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

/** Folds in what an admitted call's answer used (or nothing) and its HTTP status, and frees its reservation; answers a breach it caused. */
export type Settle = (response: ResponseUsage | undefined, status?: number) => EgressBreach | undefined;

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

export function createMeter(runId: string, provider: ModelProvider, budget: EgressBudget = {}): Meter {
  let turns = 0;
  let requests = 0;
  let refused = 0;
  let usage = ZERO;
  let costUsd = 0;
  let dearest = false;
  const models: string[] = [];
  const calls: MeteredCall[] = [];
  let breach: EgressBreach | undefined;

  const breachOf = (cap: EgressCap, used: number): EgressBreach => {
    const limit = budget[cap] ?? 0;
    const unit = (n: number): string =>
      cap === "maxTurns" ? `${n} model call${n === 1 ? "" : "s"}` : cap === "maxTokens" ? `${n.toLocaleString("en-US")} tokens` : `$${n.toFixed(4)}`;
    const priced = cap === "maxCostUsd" && dearest ? `, some priced at ${provider}'s dearest model since the provider named one not in the price table` : "";
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

  /** Folds in one response; the breach it caused (once), and what it cost. */
  const fold = (response: ResponseUsage): { breach: EgressBreach | undefined; costUsd: number } => {
    const u = response.usage;
    usage = {
      inputTokens: usage.inputTokens + u.inputTokens,
      outputTokens: usage.outputTokens + u.outputTokens,
      cacheReadTokens: usage.cacheReadTokens + u.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens + u.cacheWriteTokens,
    };
    const priced = priceOf(provider, response.model);
    dearest ||= !priced.known;
    const callCost = costOf(u, priced.price);
    costUsd += callCost;
    if (response.model !== undefined && !models.includes(response.model)) models.push(response.model);
    if (breach !== undefined) return { breach: undefined, costUsd: callCost };
    const tokens = usage.inputTokens + usage.outputTokens;
    if (budget.maxTokens !== undefined && tokens > budget.maxTokens) breach = breachOf("maxTokens", tokens);
    else if (budget.maxCostUsd !== undefined && costUsd > budget.maxCostUsd) breach = breachOf("maxCostUsd", costUsd);
    return { breach, costUsd: callCost };
  };
  const add = (response: ResponseUsage): EgressBreach | undefined => fold(response).breach;

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
      const startedAt = Date.now();
      return {
        kind: "admitted",
        settle: (response, status) => {
          if (!open) return undefined;
          open = false;
          reserved.tokens -= reservation.tokens;
          reserved.costUsd -= reservation.costUsd;
          reserved.calls -= 1;
          const folded = response === undefined ? undefined : fold(response);
          const passed = folded?.breach;
          if (calls.length < MAX_METERED_CALLS) calls.push(meteredCall(startedAt, response, status, folded?.costUsd ?? 0));
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
      provider,
      turns,
      requests,
      refused,
      usage,
      tokens: usage.inputTokens + usage.outputTokens,
      costUsd,
      costFrom: dearest ? "dearest_price" : "price_table",
      models: [...models],
      calls: [...calls],
      ...(breach === undefined ? {} : { breach }),
      ...(lastByteAt === undefined ? {} : { lastByteAt }),
    }),
  };
}

/** One settled model call as the meter reports it: times, status, model and counts; nothing of its content. */
function meteredCall(startedAt: number, response: ResponseUsage | undefined, status: number | undefined, costUsd: number): MeteredCall {
  return {
    startedAt,
    endedAt: Date.now(),
    ...(status === undefined ? {} : { status }),
    ...(response?.model === undefined ? {} : { model: response.model }),
    inputTokens: response?.usage.inputTokens ?? 0,
    outputTokens: response?.usage.outputTokens ?? 0,
    costUsd,
  };
}
