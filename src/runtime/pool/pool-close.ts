// Closing the pool: no member is made or kept any more. Makes under way leave the engine's line,
// waiting replacements and the backoff are dropped, ready members are discarded.
// Invariant: close() resolves only when every member and background task of the pool has settled.

import type { PoolBook } from "./pool-book.js";
import { discard } from "./pool-tasks.js";

export async function close(book: PoolBook): Promise<void> {
  book.closed = true;
  book.closing.abort(new Error("the pool closed"));
  clearTimeout(book.backoffTimer);
  for (const timer of book.deferred) clearTimeout(timer);
  book.deferred.clear();
  for (const member of book.ready.splice(0)) {
    clearTimeout(book.idleTimers.get(member.id));
    discard(book, member);
  }
  book.idleTimers.clear();
  // A task that ends may start another (a make that ends now discards its member): wait until none is left.
  while (book.tasks.size > 0) await Promise.all([...book.tasks]);
}
