// The ready list: a member made joins it and leaves it once, by its claim (unready), by close, or
// retired: idle past maxIdleSeconds, or its container stopped before its claim. A retired member is
// discarded, counted replaced, and `refill` then makes its successor.
// Invariant: a member off the ready list has no idle timer left.

import type { PoolBook } from "./pool-book.js";
import { stoppedEarly } from "./pool-health.js";
import type { Member } from "./pool-member.js";
import { discard } from "./pool-tasks.js";

/** A member made joins the ready list, to be retired when it idles too long or stops. */
export function admit(book: PoolBook, member: Member, refill: () => void): void {
  book.ready.push(member);
  book.idleTimers.set(
    member.id,
    setTimeout(() => retire(book, member, `idle past maxIdleSeconds (${book.maxIdleSeconds})`, refill), book.maxIdleSeconds * 1000),
  );
  void member.stopped.then(() => {
    if (!book.ready.includes(member)) return;
    stoppedEarly(book);
    retire(book, member, "its container stopped before its claim", refill);
  });
}

/** Takes a member off the ready list; false when it was not on it. */
export function unready(book: PoolBook, member: Member): boolean {
  const at = book.ready.indexOf(member);
  if (at < 0) return false;
  book.ready.splice(at, 1);
  clearTimeout(book.idleTimers.get(member.id));
  book.idleTimers.delete(member.id);
  return true;
}

function retire(book: PoolBook, member: Member, why: string, refill: () => void): void {
  if (!unready(book, member)) return;
  book.tally.replaced++;
  book.logger.info({ member: member.id, why }, "pool member replaced");
  discard(book, member);
  refill();
}
