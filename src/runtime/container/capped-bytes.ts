// Keeps the first `capBytes` of a byte stream and counts the rest; used for stderr, whose whole
// is never needed but whose start explains most failures.

export type CappedBytes = {
  readonly push: (chunk: Uint8Array) => void;
  readonly totalBytes: () => number;
  /** What was kept, decoded as UTF-8 (malformed bytes replaced). */
  readonly text: () => string;
};

export function createCappedBytes(capBytes: number): CappedBytes {
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let total = 0;
  return {
    push: (chunk) => {
      total += chunk.length;
      const room = capBytes - keptBytes;
      if (room <= 0) return;
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      kept.push(Uint8Array.prototype.slice.call(part));
      keptBytes += part.length;
    },
    totalBytes: () => total,
    text: () => Buffer.concat(kept).toString("utf8"),
  };
}
