// Filling the pool: how many members to make and when. It keeps `size` members ready or being made,
// at most MAKING_AT_ONCE at a time, waits out the backoff after failures, and makes a claimed
// member's replacement a while later (REPLACE_AFTER_CLAIM_MS) while another member is ready.
// Invariant: a member is live for sweeps from its make's first step; nothing is made once the pool closed.

import { liveRuns } from "../live-runs.js";
import { newRunId } from "../run-id.js";
import type { PoolBook } from "./pool-book.js";
import { madeAgain, makeFailed } from "./pool-health.js";
import { makeMember, type Member } from "./pool-member.js";
import { MAKING_AT_ONCE, REPLACE_AFTER_CLAIM_MS } from "./pool-options.js";
import { admit } from "./pool-retire.js";
import { discard, later } from "./pool-tasks.js";

/** Makes members up to the size: at once, or after the backoff when the last makes failed. */
export function fill(book: PoolBook): void {
  if (book.closed || book.backoffTimer !== undefined) return;
  if (book.backoffMs === 0) {
    fillNow(book);
    return;
  }
  // After a failure the next make waits; a success (backoffMs back to 0) makes the rest at once.
  book.backoffTimer = setTimeout(() => {
    book.backoffTimer = undefined;
    fillNow(book);
  }, book.backoffMs);
  book.backoffTimer.unref();
}

/** A member was claimed: its replacement, at once when none other is ready, else a while later. */
export function replaceClaimed(book: PoolBook): void {
  if (book.ready.length === 0) {
    fill(book);
    return;
  }
  const timer = setTimeout(() => {
    book.deferred.delete(timer);
    fill(book);
  }, REPLACE_AFTER_CLAIM_MS);
  timer.unref();
  book.deferred.add(timer);
}

function fillNow(book: PoolBook): void {
  // The waiting replacements count against the size only while a member is ready to serve meanwhile.
  const target = book.ready.length === 0 ? book.options.size : book.options.size - book.deferred.size;
  while (!book.closed && book.ready.length + book.making < target && book.making < MAKING_AT_ONCE) makeOne(book);
}

function makeOne(book: PoolBook): void {
  book.making++;
  // Live from its first step: a sweep of this process (the service's start-up sweep) must not take its directory while it is made.
  const id = newRunId();
  liveRuns.add(id);
  const made = makeMember(book.maker, id, book.closing.signal).then(
    (result) => {
      book.making--;
      if ("failed" in result) {
        liveRuns.delete(id);
        // Abandoned because the pool closed (its network's wait in the engine's line ended): no failure.
        if (book.closed) return;
        makeFailed(book, result.failed);
        return;
      }
      madeAgain(book);
      madeOne(book, result);
    },
    (error: unknown) => {
      liveRuns.delete(id);
      book.making--;
      makeFailed(book, error instanceof Error ? error.message : String(error));
    },
  );
  later(
    book,
    made.then(() => fill(book)),
  );
}

function madeOne(book: PoolBook, member: Member): void {
  if (book.closed) {
    discard(book, member);
    return;
  }
  admit(book, member, () => fill(book));
}
