// A tenant's quotas, held at submit: its Runs accepted and not ended (queued or running, and ones
// being submitted), and what its Runs cost since midnight UTC. Past one, the submit is refused with
// the quota named and when to try again. Runs running at once are held at the queue instead (run-queue.ts).

import type { ResolvedQuotas } from "./run-service-options.js";
import type { RunsBook } from "./runs-state.js";
import { TERMINAL_STATES } from "./store.js";
import { RETRY_AFTER_SECONDS } from "../limits.js";
import { startOfTodayUtc } from "./usage.js";

/** Which quota a submit passed, its limit, what the tenant has used of it, and when to try again. */
export type QuotaRefusal = {
  readonly quota: "max_queued" | "daily_spend_usd";
  readonly tenant: string;
  readonly limit: number;
  readonly used: number;
  readonly retryAfterSeconds: number;
};

export function quotasOf(state: RunsBook, tenant: string): ResolvedQuotas {
  return state.options.quotasOf?.(tenant) ?? { maxRunning: state.options.slots, maxQueued: state.options.queueBound };
}

/** The tenant's quota of Runs accepted and not ended, if a new Run of `tenant` would pass it: decided before any await, so submits that arrive together cannot all see room for one. */
export function quotaRefusal(state: RunsBook, tenant: string): QuotaRefusal | undefined {
  const quotas = quotasOf(state, tenant);
  const live = liveRunsOf(state, tenant) + (state.admittingBy.get(tenant) ?? 0);
  if (live >= quotas.maxQueued) return { quota: "max_queued", tenant, limit: quotas.maxQueued, used: live, retryAfterSeconds: RETRY_AFTER_SECONDS };
  return undefined;
}

/** The tenant's daily spend quota, if what its Runs that ended since midnight UTC cost has reached it. */
export async function spendRefusal(state: RunsBook, tenant: string): Promise<QuotaRefusal | undefined> {
  const { dailySpendUsd } = quotasOf(state, tenant);
  if (dailySpendUsd === undefined) return undefined;
  const spent = await spentToday(state, tenant);
  if (spent < dailySpendUsd) return undefined;
  return { quota: "daily_spend_usd", tenant, limit: dailySpendUsd, used: spent, retryAfterSeconds: secondsToMidnightUtc(Date.now()) };
}

/** The tenant's Runs accepted and not ended (the book holds every one). */
export function liveRunsOf(state: RunsBook, tenant: string): number {
  let live = 0;
  for (const record of state.records.values()) if (record.tenant === tenant && !TERMINAL_STATES.has(record.state)) live += 1;
  return live;
}

/** What the tenant's Runs that ended since midnight UTC cost, in USD: the store's sum of today. */
export async function spentToday(state: RunsBook, tenant: string, now = Date.now()): Promise<number> {
  const [today] = await state.store.usage(startOfTodayUtc(now), tenant);
  return today?.totals.costUsd ?? 0;
}

function secondsToMidnightUtc(now: number): number {
  return Math.max(1, Math.ceil((86_400_000 - (now % 86_400_000)) / 1000));
}

export function quotaMessage(refusal: QuotaRefusal): string {
  if (refusal.quota === "max_queued")
    return `tenant ${JSON.stringify(refusal.tenant)} has ${refusal.used} Runs accepted and not ended, its quota max_queued (${refusal.limit}); wait for one to end, or ask the Operator for a larger quota (agentcage tenants set ${refusal.tenant} --max-queued N)`;
  return `tenant ${JSON.stringify(refusal.tenant)} has spent ${refusal.used.toFixed(4)} USD today (UTC), its quota daily_spend_usd (${refusal.limit}); send again after midnight UTC, or ask the Operator to raise it (agentcage tenants set ${refusal.tenant} --daily-spend-usd N)`;
}
