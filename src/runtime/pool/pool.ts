// The warm pool of one runtime: members made ahead (pool-member.ts), each handed to exactly one Run
// at its claim and never returned; a member idle past maxIdleSeconds, or stopped, is replaced. The
// pool keeps `size` members ready or being made, at most MAKING_AT_ONCE made at a time, and backs
// off after failures; a claimed member's replacement waits a second while another is ready. Makes
// that fail, or members that stop before their claim, POOL_DEGRADED_IN_A_ROW times in a row make
// the pool degraded (one log line) until a member is made (or claimed) again.
// Invariant: every member this pool made is, at any time, in exactly one place: being made, ready,
// claimed (its Run removes it), or being discarded; close() waits for them all.

import type { Logger } from "pino";
import type { Degradations } from "../degradations.js";
import { liveRuns } from "../live-runs.js";
import { describeValue } from "../misuse.js";
import { discardMember, makeMember, type HeadStartPlan, type Member, type MemberMaker } from "./pool-member.js";
import { newRunId } from "../run-id.js";
import type { RunNetwork } from "../network/index.js";

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
const MAKING_AT_ONCE = 4;
/** After a failed make, the next waits this long, doubling up to MAX_BACKOFF_MS: a missing image must not spin. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/**
 * A claimed member's replacement waits this long while another member is ready: made at once, it
 * competes for the CPU with the claimed Run's agent starting up (on 2 cores that slowed warm Runs).
 * With none ready it is made at once: the next Run would go cold.
 */
const REPLACE_AFTER_CLAIM_MS = 1000;
/**
 * Makes that failed, or members that stopped before their claim, in a row before the pool is
 * degraded: one may be the engine's passing trouble under load (slow is not dead); three, with the
 * backoff between them, are a pool that cannot fill.
 */
export const POOL_DEGRADED_IN_A_ROW = 3;
/** Claim latencies kept for the percentiles. */
const LATENCY_SAMPLES = 1024;

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

export type Pool = {
  readonly network: PoolOptions["network"];
  /** A ready member, now this Run's alone; undefined when none is ready (the Run goes cold). */
  readonly claim: () => Member | undefined;
  /** Counts a Run served cold, and why. */
  readonly cold: (why: string) => void;
  /** A warm Run's member had a head start, and the Run took it (or not). */
  readonly headStarted: (used: boolean) => void;
  /** A warm Run's claim was written this many ms after its slot. */
  readonly claimed: (latencyMs: number) => void;
  /** A claimed member, once its Run is over (or ended before it ran): what is left of it removed in the background; close() waits for it. */
  readonly discard: (member: Member) => void;
  /**
   * A warm Run's own tidying once its Outcome is given (its directory released and removed): done in
   * the background, the Run live for sweeps until it is; close() waits for it.
   */
  readonly afterRun: (runId: string, tidy: () => Promise<void>) => void;
  readonly stats: () => PoolStats;
  /** Stops making members, removes the ready ones, and waits for every member and background task. */
  readonly close: () => Promise<void>;
};

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

/** `degradations`: where the pool says it cannot fill, and that it fills again; default: nowhere but GET /v1/pool's figures. */
export function createPool(options: PoolOptions, maker: MemberMaker, logger: Logger, degradations?: Degradations): Pool {
  const maxIdleSeconds = options.maxIdleSeconds ?? DEFAULT_POOL_IDLE_SECONDS;
  const ready: Member[] = [];
  const idleTimers = new Map<string, NodeJS.Timeout>();
  const tasks = new Set<Promise<unknown>>();
  const cold: Record<string, number> = {};
  const latencies: number[] = [];
  let making = 0;
  let claimed = 0;
  let replaced = 0;
  let failures = 0;
  const headStarts = { used: 0, wasted: 0 };
  let lastFailure: string | undefined;
  // Makes in a row that failed, since a member was last made.
  let failedInARow = 0;
  let backoffMs = 0;
  // Members in a row that stopped before any claim (a head start that dies at once, an image that
  // cannot run the launcher): made again only after a backoff, as a failed make is, until one serves.
  let stoppedInARow = 0;
  let backoffTimer: NodeJS.Timeout | undefined;
  /** Replacements of claimed members waiting out REPLACE_AFTER_CLAIM_MS, each its own timer. */
  const deferred = new Set<NodeJS.Timeout>();
  let closed = false;
  // Members whose networks still wait their turn in the engine's line leave it when the pool closes.
  const closing = new AbortController();

  // Degraded while either count is at POOL_DEGRADED_IN_A_ROW; the reason says which, and the last failure.
  const judge = (): void => {
    if (degradations === undefined || closed) return;
    if (failedInARow < POOL_DEGRADED_IN_A_ROW && stoppedInARow < POOL_DEGRADED_IN_A_ROW) {
      degradations.clear("pool");
      return;
    }
    degradations.raise({
      kind: "pool",
      reason:
        failedInARow >= POOL_DEGRADED_IN_A_ROW
          ? `the warm pool could not make a container ${failedInARow} times in a row (the last: ${lastFailure ?? "no reason given"}); Runs start cold meanwhile`
          : `the warm pool's containers stopped before their claim ${stoppedInARow} times in a row; Runs start cold meanwhile`,
      fix:
        failedInARow >= POOL_DEGRADED_IN_A_ROW
          ? "mend what the last failure says (the agent image, the engine, the Run network range: agentcage doctor checks them); the pool keeps trying, backing off"
          : "check that the agent image runs its launcher (bash or busybox sh) and that a head start does not end at once; the pool keeps trying, backing off",
    });
  };
  const failed = (why: string): void => {
    failures++;
    failedInARow++;
    lastFailure = why;
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs === 0 ? FIRST_BACKOFF_MS : backoffMs * 2);
    // Each one at debug only: when they come in a row, the degradation says so, once.
    logger.debug({ err: why, failedInARow, retryInMs: backoffMs }, "a pool member could not be made");
    judge();
  };
  const later = (task: Promise<unknown>): void => {
    const tracked = task.catch(() => undefined).finally(() => tasks.delete(tracked));
    tasks.add(tracked);
  };
  const discard = (member: Member): void => {
    later(discardMember(maker, member).finally(() => liveRuns.delete(member.id)));
  };
  const unready = (member: Member): boolean => {
    const at = ready.indexOf(member);
    if (at < 0) return false;
    ready.splice(at, 1);
    clearTimeout(idleTimers.get(member.id));
    idleTimers.delete(member.id);
    return true;
  };
  const replace = (member: Member, why: string): void => {
    if (!unready(member)) return;
    replaced++;
    logger.info({ member: member.id, why }, "pool member replaced");
    discard(member);
    fill();
  };
  const madeOne = (member: Member): void => {
    if (closed) {
      discard(member);
      return;
    }
    ready.push(member);
    idleTimers.set(
      member.id,
      setTimeout(() => replace(member, `idle past maxIdleSeconds (${maxIdleSeconds})`), maxIdleSeconds * 1000),
    );
    void member.stopped.then(() => {
      if (!ready.includes(member)) return;
      stoppedInARow++;
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs === 0 ? FIRST_BACKOFF_MS : backoffMs * 2);
      judge();
      replace(member, "its container stopped before its claim");
    });
  };
  const makeOne = (): void => {
    making++;
    // Live from its first step: a sweep of this process (the service's start-up sweep) must not take its directory while it is made.
    const id = newRunId();
    liveRuns.add(id);
    const made = makeMember(maker, id, closing.signal).then(
      (result) => {
        making--;
        if ("failed" in result) {
          liveRuns.delete(id);
          // Abandoned because the pool closed (its network's wait in the engine's line ended): no failure.
          if (closed) return;
          failed(result.failed);
          return;
        }
        if (stoppedInARow === 0) backoffMs = 0;
        failedInARow = 0;
        judge();
        madeOne(result);
      },
      (error: unknown) => {
        liveRuns.delete(id);
        making--;
        failed(error instanceof Error ? error.message : String(error));
      },
    );
    later(made.then(() => fill()));
  };
  const fill = (): void => {
    if (closed || backoffTimer !== undefined) return;
    if (backoffMs === 0) {
      fillNow();
      return;
    }
    // After a failure the next make waits; a success (backoffMs back to 0) makes the rest at once.
    backoffTimer = setTimeout(() => {
      backoffTimer = undefined;
      fillNow();
    }, backoffMs);
    backoffTimer.unref();
  };
  const fillNow = (): void => {
    // The waiting replacements count against the size only while a member is ready to serve meanwhile.
    const target = ready.length === 0 ? options.size : options.size - deferred.size;
    while (!closed && ready.length + making < target && making < MAKING_AT_ONCE) makeOne();
  };
  const replaceClaimed = (): void => {
    if (ready.length === 0) {
      fill();
      return;
    }
    const timer = setTimeout(() => {
      deferred.delete(timer);
      fill();
    }, REPLACE_AFTER_CLAIM_MS);
    timer.unref();
    deferred.add(timer);
  };
  fill();

  return {
    network: options.network,
    claim: () => {
      const member = ready[0];
      if (member === undefined) return undefined;
      unready(member);
      claimed++;
      stoppedInARow = 0;
      judge();
      backoffMs = 0;
      replaceClaimed();
      return member;
    },
    cold: (why) => {
      cold[why] = (cold[why] ?? 0) + 1;
    },
    headStarted: (used) => {
      if (used) headStarts.used++;
      else headStarts.wasted++;
    },
    claimed: (latencyMs) => {
      latencies.push(latencyMs);
      if (latencies.length > LATENCY_SAMPLES) latencies.shift();
      try {
        options.onClaim?.(latencyMs);
      } catch {
        // A metrics hook that throws is its own problem, never the Run's.
      }
    },
    discard,
    afterRun: (runId, tidy) => {
      liveRuns.add(runId);
      later(tidy().finally(() => liveRuns.delete(runId)));
    },
    stats: () => ({
      size: options.size,
      maxIdleSeconds,
      ready: ready.length,
      making,
      claimed,
      cold: { ...cold },
      replaced,
      failures,
      ...(lastFailure === undefined ? {} : { lastFailure }),
      ...(options.headStart === undefined ? {} : { headStarts: { ...headStarts } }),
      claimLatencyMs: percentiles(latencies),
    }),
    close: async () => {
      closed = true;
      closing.abort(new Error("the pool closed"));
      clearTimeout(backoffTimer);
      for (const timer of deferred) clearTimeout(timer);
      deferred.clear();
      for (const member of ready.splice(0)) {
        clearTimeout(idleTimers.get(member.id));
        discard(member);
      }
      idleTimers.clear();
      while (tasks.size > 0) await Promise.all([...tasks]);
    },
  };
}

function percentiles(samples: readonly number[]): PoolStats["claimLatencyMs"] {
  if (samples.length === 0) return { count: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] as number };
}
