// The channel between the attach stream and the plan's reader: order kept, backpressure at the
// high-water mark, and once the reader stops, chunks are dropped so the agent never blocks.

import { describe, expect, it, vi } from "vitest";
import { createStdoutChannel } from "./stdout-channel.js";

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
}

describe("createStdoutChannel", () => {
  it("delivers chunks in the order they were pushed", async () => {
    const channel = createStdoutChannel(() => {});
    channel.push(bytes(1));
    channel.push(bytes(2, 3));
    channel.push(bytes(4, 5, 6));
    channel.end();
    expect(await collect(channel)).toEqual([bytes(1), bytes(2, 3), bytes(4, 5, 6)]);
  });

  it("wakes a waiting consumer for each chunk pushed later", async () => {
    const channel = createStdoutChannel(() => {});
    const collected = collect(channel);
    for (const value of [7, 8, 9]) {
      await Promise.resolve();
      channel.push(bytes(value));
    }
    channel.end();
    expect(await collected).toEqual([bytes(7), bytes(8), bytes(9)]);
  });

  it("keeps its own copy of a chunk the producer reuses", async () => {
    const channel = createStdoutChannel(() => {});
    const buffer = bytes(1, 2, 3);
    channel.push(buffer);
    buffer.fill(0);
    channel.end();
    expect(await collect(channel)).toEqual([bytes(1, 2, 3)]);
  });

  it("asks the producer to pause at the high-water mark and calls onDrain when the consumer catches up", async () => {
    const onDrain = vi.fn();
    const channel = createStdoutChannel(onDrain, 10);
    expect([channel.push(bytes(1, 1, 1, 1)), channel.push(bytes(2, 2, 2, 2)), channel.push(bytes(3, 3, 3, 3))]).toEqual([true, true, false]);
    expect(onDrain).not.toHaveBeenCalled();

    const reader = channel[Symbol.asyncIterator]();
    expect(await reader.next()).toEqual({ done: false, value: bytes(1, 1, 1, 1) });
    expect(onDrain).toHaveBeenCalledTimes(1);
    expect(await reader.next()).toEqual({ done: false, value: bytes(2, 2, 2, 2) });
    expect(onDrain).toHaveBeenCalledTimes(1);
    expect(channel.push(bytes(4))).toBe(true);
  });

  it("stops delivering once the consumer breaks out, and drops what comes after", async () => {
    const onDrain = vi.fn();
    const channel = createStdoutChannel(onDrain, 4);
    channel.push(bytes(1));
    channel.push(bytes(2));
    const seen: Uint8Array[] = [];
    for await (const chunk of channel) {
      seen.push(chunk);
      break;
    }
    expect(seen).toEqual([bytes(1)]);
    expect(onDrain).toHaveBeenCalledTimes(1);
    expect(channel.push(new Uint8Array(100))).toBe(true);
    channel.end();
    expect(await collect(channel)).toEqual([]);
  });

  it("stops delivering after detach, and a waiting consumer finishes", async () => {
    const channel = createStdoutChannel(() => {});
    const collected = collect(channel);
    channel.push(bytes(1));
    await Promise.resolve();
    channel.detach();
    expect(channel.push(bytes(2))).toBe(true);
    expect(await collected).toEqual([bytes(1)]);
  });

  it("lets a consumer that starts after end() read what was queued and finish", async () => {
    const channel = createStdoutChannel(() => {});
    channel.push(bytes(1, 2));
    channel.end();
    expect(channel.push(bytes(3))).toBe(true);
    expect(await collect(channel)).toEqual([bytes(1, 2)]);
  });

  it("finishes an empty channel at end()", async () => {
    const channel = createStdoutChannel(() => {});
    const collected = collect(channel);
    channel.end();
    expect(await collected).toEqual([]);
  });
});
