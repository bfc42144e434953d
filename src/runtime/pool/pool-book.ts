// The pool's book: the one state a warm pool keeps, read and changed by the named steps beside it
// (fill, retire, claim, health, tasks, stats, close) and by nothing else.
// Invariant: every member this pool made is, at any time, in exactly one place: being made (counted
// in `making`), ready, claimed (its Run removes it), or being discarded (a task); close() waits for them all.

import type { Logger } from "pino";
import type { Degradations } from "../degradations.js";
import { DEFAULT_POOL_IDLE_SECONDS, type PoolOptions } from "./pool-options.js";
import type { Member, MemberMaker } from "./pool-member.js";

export type PoolBook = {
  readonly options: PoolOptions;
  /** options.maxIdleSeconds, or its default. */
  readonly maxIdleSeconds: number;
  readonly maker: MemberMaker;
  readonly logger: Logger;
  /** Where the pool says it cannot fill, and that it fills again; undefined: nowhere but the stats. */
  readonly degradations: Degradations | undefined;

  /** Members made and waiting for their Run, the next to be claimed first. */
  readonly ready: Member[];
  /** Each ready member's retirement when it idles past maxIdleSeconds, by its id. */
  readonly idleTimers: Map<string, NodeJS.Timeout>;
  /** Members being made now. */
  making: number;
  /** Replacements of claimed members waiting out REPLACE_AFTER_CLAIM_MS, each its own timer. */
  readonly deferred: Set<NodeJS.Timeout>;
  /** Discards and Runs' tidying under way in the background. */
  readonly tasks: Set<Promise<unknown>>;
  /** No member is made or kept any more. */
  closed: boolean;
  /** Aborted at close: members whose networks still wait their turn in the engine's line leave it. */
  readonly closing: AbortController;

  /** Makes in a row that failed, since a member was last made. */
  failedInARow: number;
  /**
   * Members in a row that stopped before any claim (a head start that dies at once, an image that
   * cannot run the launcher): made again only after a backoff, as a failed make is, until one serves.
   */
  stoppedInARow: number;
  /** How long the next make waits; 0: at once. */
  backoffMs: number;
  /** The wait for the next make, while one is under way. */
  backoffTimer: NodeJS.Timeout | undefined;

  /** What GET /v1/pool counts, since the runtime was made. */
  readonly tally: {
    claimed: number;
    replaced: number;
    failures: number;
    lastFailure: string | undefined;
    readonly cold: Record<string, number>;
    readonly headStarts: { used: number; wasted: number };
    /** The last LATENCY_SAMPLES claim latencies, oldest first. */
    readonly latencies: number[];
  };
};

export function createPoolBook(options: PoolOptions, maker: MemberMaker, logger: Logger, degradations: Degradations | undefined): PoolBook {
  return {
    options,
    maxIdleSeconds: options.maxIdleSeconds ?? DEFAULT_POOL_IDLE_SECONDS,
    maker,
    logger,
    degradations,
    ready: [],
    idleTimers: new Map(),
    making: 0,
    deferred: new Set(),
    tasks: new Set(),
    closed: false,
    closing: new AbortController(),
    failedInARow: 0,
    stoppedInARow: 0,
    backoffMs: 0,
    backoffTimer: undefined,
    tally: { claimed: 0, replaced: 0, failures: 0, lastFailure: undefined, cold: {}, headStarts: { used: 0, wasted: 0 }, latencies: [] },
  };
}
