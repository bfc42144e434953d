// JSONL framing of a byte stream: split on LF bytes (never `readline`, which also splits on
// U+2028/U+2029 inside JSON strings), decode each line as UTF-8, cap its length without buffering
// past the cap, and parse a final line that has no newline. Pure; no knowledge of any agent.
// Lines wholly inside a chunk are decoded straight from it; only a line that spans chunks is kept.

import { isAscii } from "node:buffer";
import { MAX_LINE_BYTES } from "./limits.js";

export type FramedLine =
  /** A line that parsed as a JSON object. */
  | { readonly kind: "json"; readonly value: Record<string, unknown> }
  /** A line that is not a JSON object (a banner, a warning, half a record); its start only. */
  | { readonly kind: "noise"; readonly text: string }
  /** A line over the cap; skipped, only its length is known. */
  | { readonly kind: "oversized"; readonly bytes: number };

const LF = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const NOISE_QUOTE_CHARS = 200;
/** The most bytes of whole lines decoded at once; past it, each line is decoded alone. */
const ASCII_DECODE_MAX_BYTES = 1024 * 1024;

/** A line that is not a JSON object. */
type OtherLine = Exclude<FramedLine, { kind: "json" }>;

/**
 * Where framed lines go, as soon as each is framed: a record is handed over bare (no wrapper to
 * allocate per line). Either answering false stops the framing: no later line is framed.
 */
type Sink = { readonly record: (value: Record<string, unknown>) => boolean | void; readonly other: (line: OtherLine) => boolean | void };

/** Frames one line's text, not empty and without its LF or trailing CR; false when the sink said stop. */
function frameText(text: string, sink: Sink): boolean {
  // A line that starts with "{" is not blank; only others pay for trim().
  if (text.charCodeAt(0) !== OPEN_BRACE && text.trim() === "") return true;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: noise.
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return sink.record(value as Record<string, unknown>) !== false;
  return sink.other({ kind: "noise", text: text.slice(0, NOISE_QUOTE_CHARS) }) !== false;
}

/** Frames bytes[start, end) of one line, its LF left out; one trailing CR is dropped. */
function frame(bytes: Buffer, start: number, end: number, sink: Sink): boolean {
  if (end > start && bytes[end - 1] === CR) end -= 1;
  return end === start || frameText(bytes.toString("utf8", start, end), sink);
}

/** An oversized line to the sink; false when it said stop. */
const oversized = (bytes: number, sink: Sink): boolean => sink.other({ kind: "oversized", bytes }) !== false;

/**
 * The framing itself, fed one chunk at a time and synchronous: each line goes to the sink as soon
 * as it is framed, so its value can die young. Keeps only the start of a line that continues.
 */
function createFramer(maxLineBytes: number, sink: Sink): { push(buffer: Buffer): boolean; end(): void } {
  // The start of a line that continues into the next chunk: its pieces, or only its length once past the cap.
  let parts: Buffer[] = [];
  let length = 0;
  let skipping = false;
  const finishPartial = (): boolean => {
    const bytes = skipping || parts.length === 0 ? undefined : parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, length);
    const wasOver = skipping ? length : undefined;
    parts = [];
    length = 0;
    skipping = false;
    if (wasOver !== undefined) return oversized(wasOver, sink);
    return bytes === undefined || frame(bytes, 0, bytes.length, sink);
  };
  const addPartial = (piece: Buffer): void => {
    length += piece.length;
    if (!skipping && length > maxLineBytes) {
      skipping = true;
      parts = [];
    }
    if (!skipping && piece.length > 0) parts.push(piece);
  };
  return {
    push(buffer) {
      let start = 0;
      const first = buffer.indexOf(LF);
      if (parts.length > 0 || skipping) {
        // The line that began in an earlier chunk.
        addPartial(buffer.subarray(0, first === -1 ? buffer.length : first));
        if (first === -1) {
          // The source may reuse its buffer: keep our own copy of a line that continues.
          if (!skipping && parts.length > 0 && (parts.at(-1) as Buffer).buffer === buffer.buffer) parts[parts.length - 1] = Buffer.from(parts.at(-1) as Buffer);
          return true;
        }
        if (!finishPartial()) return false;
        start = first + 1;
      }
      // Lines wholly inside this chunk: framed straight from it. When they are all ASCII, one
      // decode for all of them, each line a slice (byte and character offsets are the same).
      const last = buffer.lastIndexOf(LF);
      if (last > start && last - start <= ASCII_DECODE_MAX_BYTES && isAscii(buffer.subarray(start, last))) {
        // Lines are found in the string: V8's indexOf, no call into the Buffer binding per line.
        const text = buffer.toString("utf8", start, last);
        for (let at = 0; ; ) {
          const newline = text.indexOf("\n", at);
          const lineEnd = newline === -1 ? text.length : newline;
          const end = lineEnd > at && text.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
          if (!(lineEnd - at > maxLineBytes ? oversized(lineEnd - at, sink) : end === at || frameText(text.slice(at, end), sink))) return false;
          if (newline === -1) break;
          at = newline + 1;
        }
        start = last + 1;
      }
      for (let newline = start === 0 ? first : buffer.indexOf(LF, start); newline !== -1; newline = buffer.indexOf(LF, start)) {
        const go = newline - start > maxLineBytes ? oversized(newline - start, sink) : frame(buffer, start, newline, sink);
        start = newline + 1;
        if (!go) return false;
      }
      if (start < buffer.length) {
        addPartial(buffer.subarray(start));
        if (!skipping) parts[parts.length - 1] = Buffer.from(parts.at(-1) as Buffer);
      }
      return true;
    },
    end() {
      finishPartial();
    },
  };
}

const asBuffer = (chunk: Uint8Array): Buffer => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));

/**
 * Reads a byte stream to its end and hands each JSON object to `onRecord` as it is framed, each
 * other line to `onOther`; blank lines are dropped. Either answering false stops the reading there
 * and closes the source. The cheap way to read many lines: no promise, no wrapper per line.
 */
async function eachJsonLine(
  source: AsyncIterable<Uint8Array>,
  maxLineBytes: number,
  onRecord: (value: Record<string, unknown>) => boolean | void,
  onOther: (line: OtherLine) => boolean | void,
): Promise<void> {
  const framer = createFramer(maxLineBytes, { record: onRecord, other: onOther });
  for await (const chunk of source) if (!framer.push(asBuffer(chunk))) return;
  framer.end();
}

/** Frames a byte stream into lines; blank lines are dropped. */
async function* jsonLinesOneByOne(source: AsyncIterable<Uint8Array>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<FramedLine> {
  let batch: FramedLine[] = [];
  const framer = createFramer(maxLineBytes, { record: (value) => void batch.push({ kind: "json", value }), other: (line) => void batch.push(line) });
  for await (const chunk of source) {
    framer.push(asBuffer(chunk));
    const lines = batch;
    batch = [];
    yield* lines;
  }
  framer.end();
  yield* batch;
}

/**
 * Frames a byte stream into lines; blank lines are dropped. `jsonLines.each(source, maxLineBytes,
 * onRecord, onOther)` frames the same lines and hands each over as it is framed, for readers of
 * many lines.
 */
export const jsonLines = Object.assign(jsonLinesOneByOne, { each: eachJsonLine });
