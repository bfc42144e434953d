// Whether the pool fills: how long the next make waits after makes that failed or members that
// stopped before their claim, and when the pool is degraded (either count at POOL_DEGRADED_IN_A_ROW).
// Invariant: a member made resets the failed makes, a claim the early stops; the backoff is 0 only
// when neither keeps it (a claim, or a member made with no early stop in the row).

import type { PoolBook } from "./pool-book.js";
import { FIRST_BACKOFF_MS, MAX_BACKOFF_MS, POOL_DEGRADED_IN_A_ROW } from "./pool-options.js";

/** A make failed: counted, the backoff doubled, the degradation judged again. */
export function makeFailed(book: PoolBook, why: string): void {
  book.tally.failures++;
  book.failedInARow++;
  book.tally.lastFailure = why;
  backOff(book);
  // Each one at debug only: when they come in a row, the degradation says so, once.
  book.logger.debug({ err: why, failedInARow: book.failedInARow, retryInMs: book.backoffMs }, "a pool member could not be made");
  judge(book);
}

/** A ready member's container stopped before its claim. */
export function stoppedEarly(book: PoolBook): void {
  book.stoppedInARow++;
  backOff(book);
  judge(book);
}

/** A member was made. */
export function madeAgain(book: PoolBook): void {
  if (book.stoppedInARow === 0) book.backoffMs = 0;
  book.failedInARow = 0;
  judge(book);
}

/** A member was claimed: it served, so the members stopping early are over. */
export function servedAgain(book: PoolBook): void {
  book.stoppedInARow = 0;
  judge(book);
  book.backoffMs = 0;
}

function backOff(book: PoolBook): void {
  book.backoffMs = Math.min(MAX_BACKOFF_MS, book.backoffMs === 0 ? FIRST_BACKOFF_MS : book.backoffMs * 2);
}

// Degraded while either count is at POOL_DEGRADED_IN_A_ROW; the reason says which, and the last failure.
function judge(book: PoolBook): void {
  const { degradations, failedInARow, stoppedInARow } = book;
  if (degradations === undefined || book.closed) return;
  if (failedInARow < POOL_DEGRADED_IN_A_ROW && stoppedInARow < POOL_DEGRADED_IN_A_ROW) {
    degradations.clear("pool");
    return;
  }
  degradations.raise({
    kind: "pool",
    reason:
      failedInARow >= POOL_DEGRADED_IN_A_ROW
        ? `the warm pool could not make a container ${failedInARow} times in a row (the last: ${book.tally.lastFailure ?? "no reason given"}); Runs start cold meanwhile`
        : `the warm pool's containers stopped before their claim ${stoppedInARow} times in a row; Runs start cold meanwhile`,
    fix:
      failedInARow >= POOL_DEGRADED_IN_A_ROW
        ? "mend what the last failure says (the agent image, the engine, the Run network range: agentcage doctor checks them); the pool keeps trying, backing off"
        : "check that the agent image runs its launcher (bash or busybox sh) and that a head start does not end at once; the pool keeps trying, backing off",
  });
}
