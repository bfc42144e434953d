// What the pool has done and holds, as GET /v1/pool and the metrics show it: the tallies the other
// steps keep, the Runs served cold and why, head starts used or wasted, claim latency percentiles.
// Invariant: stats() hands out copies; a metrics hook that throws never reaches the Run.

import type { PoolBook } from "./pool-book.js";
import { LATENCY_SAMPLES } from "./pool-options.js";

/** What the pool has done and holds; counts are since the runtime was made. */
export type PoolStats = {
  readonly size: number;
  readonly maxIdleSeconds: number;
  readonly ready: number;
  readonly making: number;
  /** Runs served warm. */
  readonly claimed: number;
  /** Runs served cold while the pool was on, by why (`empty`: no member was ready). */
  readonly cold: Readonly<Record<string, number>>;
  /** Members replaced: idle past maxIdleSeconds, or stopped before their claim. */
  readonly replaced: number;
  /** Members that could not be made; the last reason, masked of nothing secret (a member holds none). */
  readonly failures: number;
  readonly lastFailure?: string;
  /** With headStart: warm Runs whose member had one, handed the running agent (used), or not (wasted: another plan or environment). */
  readonly headStarts?: { readonly used: number; readonly wasted: number };
  /** Over the last LATENCY_SAMPLES warm Runs, ms from the slot to the claim written. */
  readonly claimLatencyMs: { readonly count: number; readonly p50?: number; readonly p99?: number; readonly max?: number };
};

export function countCold(book: PoolBook, why: string): void {
  book.tally.cold[why] = (book.tally.cold[why] ?? 0) + 1;
}

export function countHeadStart(book: PoolBook, used: boolean): void {
  if (used) book.tally.headStarts.used++;
  else book.tally.headStarts.wasted++;
}

/** A warm Run's claim latency: kept for the percentiles and told to options.onClaim. */
export function countClaimLatency(book: PoolBook, latencyMs: number): void {
  const { latencies } = book.tally;
  latencies.push(latencyMs);
  if (latencies.length > LATENCY_SAMPLES) latencies.shift();
  try {
    book.options.onClaim?.(latencyMs);
  } catch {
    // A metrics hook that throws is its own problem, never the Run's.
  }
}

export function statsOf(book: PoolBook): PoolStats {
  const { options, tally } = book;
  return {
    size: options.size,
    maxIdleSeconds: book.maxIdleSeconds,
    ready: book.ready.length,
    making: book.making,
    claimed: tally.claimed,
    cold: { ...tally.cold },
    replaced: tally.replaced,
    failures: tally.failures,
    ...(tally.lastFailure === undefined ? {} : { lastFailure: tally.lastFailure }),
    ...(options.headStart === undefined ? {} : { headStarts: { ...tally.headStarts } }),
    claimLatencyMs: percentiles(tally.latencies),
  };
}

function percentiles(samples: readonly number[]): PoolStats["claimLatencyMs"] {
  if (samples.length === 0) return { count: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] as number };
}
