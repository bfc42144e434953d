// What Runs came to, summed: how many, by end reason, and their tokens and cost. The store's index
// sums with these (run-index.ts), by the day each Run ended (UTC), and GET /v1/usage (per tenant and
// label), GET /v1/service (per tenant, today) and the daily spend quota all read those sums, so they
// never disagree; a Run counts once it has ended, on the day it ended.

import { z } from "zod";
import { DAY_MS } from "../../container/index.js";

export const totalsSchema = z.object({
  runs: z.number().int(),
  reasons: z.record(z.string(), z.number().int()).describe("Runs by how they ended: the Outcome's reason (a Run recorded before reasons were: its state)"),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});

export type Totals = z.infer<typeof totalsSchema>;

/** What one tenant's Runs that ended since a time came to, in total and per `key=value` label. */
export type TenantUsage = { readonly tenant: string; readonly totals: Totals; readonly labels: Record<string, Totals> };

export function zeroTotals(): Totals {
  return { runs: 0, reasons: {}, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

/** What the sums need of one ended Run (the index's entry of it). */
export type EndedRun = {
  readonly state: string;
  readonly reason?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
};

/** Adds one ended Run to `totals` (changed in place): by its Outcome's reason (a Run recorded before reasons were: its state). */
export function addRun(totals: Totals, run: EndedRun): void {
  const reason = run.reason ?? run.state;
  totals.runs += 1;
  totals.reasons[reason] = (totals.reasons[reason] ?? 0) + 1;
  totals.inputTokens += run.inputTokens ?? 0;
  totals.outputTokens += run.outputTokens ?? 0;
  totals.costUsd += run.costUsd ?? 0;
}

/** Adds `from` to `into` (changed in place). */
export function addTotals(into: Totals, from: Totals): void {
  into.runs += from.runs;
  for (const [reason, runs] of Object.entries(from.reasons)) into.reasons[reason] = (into.reasons[reason] ?? 0) + runs;
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  into.costUsd += from.costUsd;
}

export function startOfTodayUtc(now = Date.now()): number {
  return now - (now % DAY_MS);
}
