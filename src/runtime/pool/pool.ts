// The warm pool of one runtime, assembled: one book (pool-book.ts) and the named steps over it, each
// in a file of its own: filling, claiming, retiring ready members, whether it fills (health), the
// background work, stats, close. Members are made ahead (pool-member.ts), each handed to exactly one
// Run at its claim and never returned; a member idle past maxIdleSeconds, or stopped, is replaced.
// Invariant: every member this pool made is, at any time, in exactly one place: being made, ready,
// claimed (its Run removes it), or being discarded; close() waits for them all.

import type { Logger } from "pino";
import type { Degradations } from "../degradations.js";
import { createPoolBook } from "./pool-book.js";
import { claim } from "./pool-claim.js";
import { close } from "./pool-close.js";
import { fill } from "./pool-fill.js";
import type { Member, MemberMaker } from "./pool-member.js";
import type { PoolOptions } from "./pool-options.js";
import { countClaimLatency, countCold, countHeadStart, statsOf, type PoolStats } from "./pool-stats.js";
import { afterRun, discard } from "./pool-tasks.js";

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

/** `degradations`: where the pool says it cannot fill, and that it fills again; default: nowhere but GET /v1/pool's figures. */
export function createPool(options: PoolOptions, maker: MemberMaker, logger: Logger, degradations?: Degradations): Pool {
  const book = createPoolBook(options, maker, logger, degradations);
  fill(book);
  return {
    network: options.network,
    claim: () => claim(book),
    cold: (why) => countCold(book, why),
    headStarted: (used) => countHeadStart(book, used),
    claimed: (latencyMs) => countClaimLatency(book, latencyMs),
    discard: (member) => discard(book, member),
    afterRun: (runId, tidy) => afterRun(book, runId, tidy),
    stats: () => statsOf(book),
    close: () => close(book),
  };
}
