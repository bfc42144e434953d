// What a runtime's warm pool is asked for, checked once where it is declared, and the pool's limits,
// each named here and nowhere else in this folder.
// Invariant: checkPoolOptions refuses what the pool could not mean; nothing past it checks again.

import { describeValue } from "../misuse.js";
import type { RunNetwork } from "../network/index.js";
import type { HeadStartPlan } from "./pool-member.js";

export type PoolOptions = {
  /** Members kept ready (or being made), 1 to MAX_POOL_SIZE. */
  readonly size: number;
  /** Seconds a member waits for its Run before it is replaced by a new one; default DEFAULT_POOL_IDLE_SECONDS. */
  readonly maxIdleSeconds?: number;
  /**
   * The network each member is made on: Runs that bring a network of the same kind joined by the same
   * peer (the runner's network policy) are served warm, others cold. Default: none (the declared networks).
   */
  readonly network?: Pick<RunNetwork, "kind" | "attach">;
  /** Told of each warm Run's claim latency (from its slot to its claim written), for metrics; must not throw. Default: none. */
  readonly onClaim?: (latencyMs: number) => void;
  /**
   * Each member's head start: called as a member is made, it answers the plan words to start the
   * agent with ahead of any Run and the Run environment to start it with, whose values must be made
   * for that member alone and be worth nothing until a Run takes them (RunOptions.envAtClaim): never
   * a caller's data. A Run whose composed words and whole environment are the same is handed the
   * running agent; any other is served by the member as without one (the head start killed). No
   * member of a declaration with secret env gets one (the secret would reach it before a claim).
   * Undefined answers: that member has none. Must not throw. Default: none.
   */
  readonly headStart?: () => HeadStartPlan | undefined;
};

export const MAX_POOL_SIZE = 256;
export const DEFAULT_POOL_IDLE_SECONDS = 300;
export const MAX_POOL_IDLE_SECONDS = 24 * 60 * 60;
/** Members made at once: more would only queue on the engine and slow the Runs under way. */
export const MAKING_AT_ONCE = 4;
/** After a failed make, the next waits this long, doubling up to MAX_BACKOFF_MS: a missing image must not spin. */
export const FIRST_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 30_000;
/**
 * A claimed member's replacement waits this long while another member is ready: made at once, it
 * competes for the CPU with the claimed Run's agent starting up (on 2 cores that slowed warm Runs).
 * With none ready it is made at once: the next Run would go cold.
 */
export const REPLACE_AFTER_CLAIM_MS = 1000;
/**
 * Makes that failed, or members that stopped before their claim, in a row before the pool is
 * degraded: one may be the engine's passing trouble under load (slow is not dead); three, with the
 * backoff between them, are a pool that cannot fill.
 */
export const POOL_DEGRADED_IN_A_ROW = 3;
/** Claim latencies kept for the percentiles. */
export const LATENCY_SAMPLES = 1024;

export function checkPoolOptions(pool: unknown): string | undefined {
  if (typeof pool !== "object" || pool === null) return `pool ${JSON.stringify(pool)} is not an object; write e.g. { size: 4 }`;
  const { size, maxIdleSeconds, onClaim, headStart } = pool as PoolOptions;
  if (!Number.isInteger(size) || size < 1 || size > MAX_POOL_SIZE)
    return `pool.size ${JSON.stringify(size)} is not a whole number from 1 to ${MAX_POOL_SIZE}; write e.g. 4`;
  if (maxIdleSeconds !== undefined && (!Number.isInteger(maxIdleSeconds) || maxIdleSeconds < 1 || maxIdleSeconds > MAX_POOL_IDLE_SECONDS)) {
    return `pool.maxIdleSeconds ${JSON.stringify(maxIdleSeconds)} is not a whole number of seconds from 1 to ${MAX_POOL_IDLE_SECONDS}; write e.g. 300, or leave it out`;
  }
  if (onClaim !== undefined && typeof onClaim !== "function")
    return `pool.onClaim ${describeValue(onClaim)} is not a function; pass (latencyMs) => ..., or leave it out`;
  if (headStart !== undefined && typeof headStart !== "function")
    return `pool.headStart ${describeValue(headStart)} is not a function; pass () => ({ words, env }), or leave it out`;
  return undefined;
}
