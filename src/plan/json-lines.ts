// JSONL framing of a byte stream: split on LF bytes (never `readline`, which also splits on
// U+2028/U+2029 inside JSON strings), decode each line as UTF-8, cap its length without buffering
// past the cap, and parse a final line that has no newline. Pure; no knowledge of any agent.

import { MAX_LINE_BYTES } from "./limits.js";

export type FramedLine =
  /** A line that parsed as a JSON object. */
  | { readonly kind: "json"; readonly value: Record<string, unknown> }
  /** A line that is not a JSON object (a banner, a warning, half a record); its start only. */
  | { readonly kind: "noise"; readonly text: string }
  /** A line over the cap; skipped, only its length is known. */
  | { readonly kind: "oversized"; readonly bytes: number };

const LF = 0x0a;
const NOISE_QUOTE_CHARS = 200;

function frame(bytes: Buffer): FramedLine | undefined {
  const text = bytes.toString("utf8").replace(/\r$/, "");
  if (text.trim() === "") return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return { kind: "json", value: value as Record<string, unknown> };
  } catch {
    // Not JSON: noise.
  }
  return { kind: "noise", text: text.slice(0, NOISE_QUOTE_CHARS) };
}

/** Frames a byte stream into lines; blank lines are dropped. */
export async function* jsonLines(source: AsyncIterable<Uint8Array>, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<FramedLine> {
  let parts: Buffer[] = [];
  let length = 0;
  let skipping = false;
  for await (const chunk of source) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start < buffer.length) {
      const newline = buffer.indexOf(LF, start);
      const end = newline === -1 ? buffer.length : newline;
      const piece = buffer.subarray(start, end);
      length += piece.length;
      if (!skipping && length > maxLineBytes) {
        skipping = true;
        parts = [];
      }
      if (!skipping) parts.push(piece);
      if (newline === -1) break;
      if (skipping) yield { kind: "oversized", bytes: length };
      else {
        const line = frame(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
        if (line !== undefined) yield line;
      }
      parts = [];
      length = 0;
      skipping = false;
      start = newline + 1;
    }
    // The source may reuse its buffer: keep our own copy of a line that continues.
    if (!skipping && parts.length > 0 && parts.at(-1)?.buffer === buffer.buffer) parts[parts.length - 1] = Buffer.from(parts.at(-1) as Buffer);
  }
  if (skipping) yield { kind: "oversized", bytes: length };
  else if (parts.length > 0) {
    const line = frame(Buffer.concat(parts));
    if (line !== undefined) yield line;
  }
}
