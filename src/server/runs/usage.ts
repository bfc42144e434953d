// What Runs came to, summed from their records: how many, by end reason, and their tokens and cost.
// GET /v1/usage (per tenant and label) and GET /v1/service (per tenant, today) both sum with these,
// so the two never disagree; a Run counts once it has ended, on the day it ended (UTC).

import { z } from "zod";
import { DAY_MS } from "../../container/index.js";
import type { RunRecord } from "./store.js";

export const totalsSchema = z.object({
  runs: z.number().int(),
  reasons: z.record(z.string(), z.number().int()).describe("Runs by how they ended: the Outcome's reason (a Run recorded before reasons were: its state)"),
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});

export type Totals = z.infer<typeof totalsSchema>;

export function zeroTotals(): Totals {
  return { runs: 0, reasons: {}, inputTokens: 0, outputTokens: 0, costUsd: 0 };
}

/** Adds one ended Run to `totals` (changed in place) and answers them. */
export function addRun(totals: Totals, record: RunRecord): Totals {
  const reason = record.reason ?? record.state;
  totals.runs += 1;
  totals.reasons[reason] = (totals.reasons[reason] ?? 0) + 1;
  totals.inputTokens += record.usage?.inputTokens ?? 0;
  totals.outputTokens += record.usage?.outputTokens ?? 0;
  totals.costUsd += record.usage?.costUsd ?? 0;
  return totals;
}

/** Whether a Run has ended, at or after `since` (epoch ms). */
export function endedSince(record: RunRecord, since: number): boolean {
  return record.endedAt !== undefined && Date.parse(record.endedAt) >= since;
}

export function startOfTodayUtc(now = Date.now()): number {
  return now - (now % DAY_MS);
}
