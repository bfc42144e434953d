// Hands stdout to the plan's reader as an async iterable, with backpressure, and keeps draining
// (and counting) after the reader stops early, so the agent never blocks on a full pipe.

import { STDOUT_HIGH_WATER_BYTES } from "../limits.js";

export type StdoutChannel = AsyncIterable<Uint8Array> & {
  /** Queues a chunk; returns false when the producer should pause until `onDrain`. */
  readonly push: (chunk: Uint8Array) => boolean;
  readonly end: () => void;
  /** Stops delivering; later chunks are dropped. Called when the reader finishes or breaks. */
  readonly detach: () => void;
};

export function createStdoutChannel(onDrain: () => void, highWaterBytes = STDOUT_HIGH_WATER_BYTES): StdoutChannel {
  let queue: Uint8Array[] = [];
  let queuedBytes = 0;
  let ended = false;
  let detached = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const detach = (): void => {
    if (detached) return;
    detached = true;
    queue = [];
    queuedBytes = 0;
    notify();
    onDrain();
  };
  return {
    push: (chunk) => {
      if (detached || ended) return true;
      // The sink may reuse its buffer; keep our own copy of what waits in the queue.
      queue.push(Uint8Array.prototype.slice.call(chunk));
      queuedBytes += chunk.length;
      notify();
      return queuedBytes < highWaterBytes;
    },
    end: () => {
      ended = true;
      notify();
    },
    detach,
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          const chunk = queue.shift();
          if (chunk !== undefined) {
            const wasFull = queuedBytes >= highWaterBytes;
            queuedBytes -= chunk.length;
            if (wasFull && queuedBytes < highWaterBytes) onDrain();
            yield chunk;
            continue;
          }
          if (ended || detached) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        detach();
      }
    },
  };
}
