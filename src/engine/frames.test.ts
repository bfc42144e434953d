// The attach stream reader is fed a multiplexed stream at every awkward chunk size; whatever the
// cut, the stdout and stderr payloads come out byte-exact and in order.

import { describe, expect, it } from "vitest";
import { createFrameDemuxer, STDERR_FRAME, STDOUT_FRAME } from "./frames.js";

type Frame = readonly [stream: number, payload: Uint8Array];

function frame(stream: number, payload: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(8 + payload.length);
  bytes[0] = stream;
  new DataView(bytes.buffer).setUint32(4, payload.length, false);
  bytes.set(payload, 8);
  return bytes;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
/** A 100 KiB payload whose every byte value occurs, so a misplaced byte shows. */
const large = Uint8Array.from({ length: 100 * 1024 }, (_, i) => (i * 7 + (i >> 8)) % 256);

const FRAMES: readonly Frame[] = [
  [STDOUT_FRAME, text('{"type":"start"}\n')],
  [STDERR_FRAME, text("warming up\n")],
  [STDOUT_FRAME, new Uint8Array(0)],
  [STDOUT_FRAME, large],
  [STDERR_FRAME, new Uint8Array([0, 1, 2, 255, 254, 8, 0, 0])],
  [STDERR_FRAME, new Uint8Array(0)],
  [STDOUT_FRAME, text("héllo, wörld ✓\n")],
  [STDOUT_FRAME, new Uint8Array([1, 0, 0, 0, 0, 0, 0, 1])],
  [STDERR_FRAME, text("done\n")],
];
const STREAM = concat(FRAMES.map(([stream, payload]) => frame(stream, payload)));

function payloadsOf(frames: readonly Frame[], stream: number): Uint8Array {
  return concat(frames.filter(([s]) => s === stream).map(([, p]) => p));
}

/** Feeds the stream in chunks of `size` (copied, so nothing depends on the whole buffer) and collects what comes out. */
function demux(bytes: Uint8Array, size: number): { stdout: Uint8Array; stderr: Uint8Array; order: number[] } {
  const parts: Record<number, Uint8Array[]> = { [STDOUT_FRAME]: [], [STDERR_FRAME]: [] };
  const order: number[] = [];
  const feed = createFrameDemuxer((stream, payload) => {
    (parts[stream] ??= []).push(payload.slice());
    if (order.at(-1) !== stream) order.push(stream);
  });
  for (let offset = 0; offset < bytes.length; offset += size) feed(bytes.slice(offset, offset + size));
  return { stdout: concat(parts[STDOUT_FRAME] ?? []), stderr: concat(parts[STDERR_FRAME] ?? []), order };
}

/** The streams in the order their non-empty payloads appear, runs of one stream merged. */
function expectedOrder(frames: readonly Frame[]): number[] {
  const order: number[] = [];
  for (const [stream, payload] of frames) if (payload.length > 0 && order.at(-1) !== stream) order.push(stream);
  return order;
}

describe("createFrameDemuxer", () => {
  it.each([[1], [2], [3], [7], [64], [STREAM.length]])("splits the stream byte-exact when fed %i bytes at a time", (size) => {
    const { stdout, stderr, order } = demux(STREAM, size);
    expect(stdout).toEqual(payloadsOf(FRAMES, STDOUT_FRAME));
    expect(stderr).toEqual(payloadsOf(FRAMES, STDERR_FRAME));
    expect(order).toEqual(expectedOrder(FRAMES));
  });

  it("passes small payloads on whole when fed all at once", () => {
    const seen: Frame[] = [];
    const feed = createFrameDemuxer((stream, payload) => seen.push([stream, payload.slice()]));
    feed(concat([frame(STDOUT_FRAME, text("one")), frame(STDERR_FRAME, text("two")), frame(STDOUT_FRAME, text("three"))]));
    expect(seen).toEqual([
      [STDOUT_FRAME, text("one")],
      [STDERR_FRAME, text("two")],
      [STDOUT_FRAME, text("three")],
    ]);
  });

  it("emits nothing for a stream of empty frames", () => {
    const seen: Frame[] = [];
    const feed = createFrameDemuxer((stream, payload) => seen.push([stream, payload]));
    feed(concat([frame(STDOUT_FRAME, new Uint8Array(0)), frame(STDERR_FRAME, new Uint8Array(0))]));
    expect(seen).toEqual([]);
  });

  it("waits for the rest of a header split across chunks", () => {
    const seen: Frame[] = [];
    const feed = createFrameDemuxer((stream, payload) => seen.push([stream, payload.slice()]));
    const bytes = frame(STDERR_FRAME, text("late"));
    feed(bytes.slice(0, 5));
    expect(seen).toEqual([]);
    feed(bytes.slice(5));
    expect(seen).toEqual([[STDERR_FRAME, text("late")]]);
  });
});

describe("a stream that breaks the frame protocol", () => {
  const demux = (onBroken: (why: string) => void) => {
    const seen: number[] = [];
    return { seen, push: createFrameDemuxer((stream) => void seen.push(stream), onBroken) };
  };

  it("is reported at a header that names no stream, and nothing after it is passed on", () => {
    const broken: string[] = [];
    const { seen, push } = demux((why) => broken.push(why));
    push(concat([frame(STDOUT_FRAME, text("ok\n")), frame(7, text("??")), frame(STDOUT_FRAME, text("after\n"))]));
    expect(seen).toEqual([STDOUT_FRAME]);
    expect(broken).toEqual(["frame 2 has the header [7, 0, 0, 0], which names no stream (1 stdout, 2 stderr)"]);
  });

  it("is reported when the stream ends inside a frame or inside a header, at every chunk size", () => {
    const whole = frame(STDOUT_FRAME, text("cut short"));
    for (const [bytes, expected] of [
      [whole.subarray(0, whole.length - 3), "the stream ended inside frame 1, 3 bytes short"],
      [concat([whole, whole.subarray(0, 5)]), "the stream ended inside the header of frame 2 (5 of 8 bytes)"],
    ] as const) {
      for (const size of [1, 2, 3, 7, 64, bytes.length]) {
        const broken: string[] = [];
        const { push } = demux((why) => broken.push(why));
        for (let i = 0; i < bytes.length; i += size) push(bytes.subarray(i, i + size));
        push.end();
        expect(broken).toEqual([expected]);
      }
    }
  });

  it("is not reported for a stream that ends between frames", () => {
    const broken: string[] = [];
    const { push } = demux((why) => broken.push(why));
    push(STREAM);
    push.end();
    expect(broken).toEqual([]);
  });
});
