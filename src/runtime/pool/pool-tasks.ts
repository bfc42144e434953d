// The pool's background work: removing what is left of a member, and a warm Run's tidying after
// its Outcome. Invariant: each is tracked until it settles, so close() can wait for it, and its id
// stays live for sweeps until then; a task that fails is its own end, never the pool's.

import { liveRuns } from "../live-runs.js";
import type { PoolBook } from "./pool-book.js";
import { discardMember, type Member } from "./pool-member.js";

/** Removes what is left of a member in the background. */
export function discard(book: PoolBook, member: Member): void {
  const removed = discardMember(book.maker, member).finally(() => liveRuns.delete(member.id));
  later(book, removed);
}

/** A warm Run's own tidying once its Outcome is given, in the background. */
export function afterRun(book: PoolBook, runId: string, tidy: () => Promise<void>): void {
  liveRuns.add(runId);
  const tidied = tidy().finally(() => liveRuns.delete(runId));
  later(book, tidied);
}

/** Tracks a task until it settles, whatever it settles with. */
export function later(book: PoolBook, task: Promise<unknown>): void {
  const tracked = task.catch(() => undefined).finally(() => book.tasks.delete(tracked));
  book.tasks.add(tracked);
}
