// Claiming a member: the Run that asks first gets the oldest ready member, now its alone and never
// returned (its Run discards it); the claim starts its replacement. Invariant: a member is claimed once.

import type { PoolBook } from "./pool-book.js";
import { replaceClaimed } from "./pool-fill.js";
import { servedAgain } from "./pool-health.js";
import type { Member } from "./pool-member.js";
import { unready } from "./pool-retire.js";

/** A ready member for one Run; undefined when none is ready (the Run goes cold). */
export function claim(book: PoolBook): Member | undefined {
  const member = book.ready[0];
  if (member === undefined) return undefined;
  unready(book, member);
  book.tally.claimed++;
  servedAgain(book);
  replaceClaimed(book);
  return member;
}
