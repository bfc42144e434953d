// A Run's wait for its slot: at most the runtime's concurrency run at once, the rest queue in
// order. A Run cancelled while it waits ends at once, not when the slot comes, and its slot then
// passes straight on.
// Invariant: the answer is given exactly once, and `settled` runs just before it, whichever came first.

import type { LimitFunction } from "p-limit";

export type QueuedRun<T> = {
  readonly limit: LimitFunction;
  /** The caller's cancel; default: the wait cannot be cancelled. */
  readonly signal?: AbortSignal | undefined;
  /** The answer of a Run cancelled while it waits. */
  readonly cancelled: () => T;
  /** The Run in its slot; not called when the wait was cancelled. Must not reject. */
  readonly inSlot: () => Promise<T>;
  /** Called once, as the answer is given. */
  readonly settled: () => void;
};

export function waitForSlot<T>(run: QueuedRun<T>): Promise<T> {
  const { limit, signal } = run;
  return new Promise<T>((resolve) => {
    let settled = false;
    const settle = (answer: T): void => {
      if (settled) return;
      settled = true;
      run.settled();
      resolve(answer);
    };
    const cancelQueued = (): void => settle(run.cancelled());
    signal?.addEventListener("abort", cancelQueued, { once: true });
    void limit(async () => {
      signal?.removeEventListener("abort", cancelQueued);
      if (settled) return;
      settle(await run.inSlot());
    });
  });
}
