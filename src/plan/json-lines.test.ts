// JSONL framing of a byte stream, fed at every chunk size the real CLIs' output might arrive in.

import { describe, expect, it } from "vitest";
import { jsonLines, type FramedLine } from "./json-lines.js";

const CHUNK_SIZES = [1, 2, 3, 7, 64, Number.MAX_SAFE_INTEGER];

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, Math.min(bytes.length, i + size));
}

async function frame(text: string | Buffer, size: number, maxLineBytes?: number): Promise<FramedLine[]> {
  const lines: FramedLine[] = [];
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  for await (const line of jsonLines(chunked(bytes, size), maxLineBytes)) lines.push(line);
  return lines;
}

describe("jsonLines", () => {
  it.each(CHUNK_SIZES)("keeps JSON strings holding U+2028, U+2029 and multi-byte text whole at chunk size %s", async (size) => {
    const records = [{ a: "line\u2028separator\u2029para" }, { b: "日本語 é 😀" }, { c: 3 }];
    const text = `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
    expect(await frame(text, size)).toEqual(records.map((value) => ({ kind: "json", value })));
  });

  it.each(CHUNK_SIZES)("parses a final line without a newline, and drops blank lines, at chunk size %s", async (size) => {
    expect(await frame('\n{"x":1}\r\n\n{"y":2}', size)).toEqual([
      { kind: "json", value: { x: 1 } },
      { kind: "json", value: { y: 2 } },
    ]);
  });

  it.each(CHUNK_SIZES)("reports noise and a cut record as noise, at chunk size %s", async (size) => {
    expect(await frame('Warning: something\n[1,2]\n{"type":"result","subty', size)).toEqual([
      { kind: "noise", text: "Warning: something" },
      { kind: "noise", text: "[1,2]" },
      { kind: "noise", text: '{"type":"result","subty' },
    ]);
  });

  it.each(CHUNK_SIZES)("counts and skips a line over the cap without keeping it, at chunk size %s", async (size) => {
    const text = `{"a":"${"x".repeat(100)}"}\n{"ok":true}\n{"b":"${"y".repeat(100)}"}`;
    expect(await frame(text, size, 50)).toEqual([
      { kind: "oversized", bytes: 108 },
      { kind: "json", value: { ok: true } },
      { kind: "oversized", bytes: 108 },
    ]);
  });
});

describe("jsonLines, cut anywhere", () => {
  const text = [
    JSON.stringify({ type: "a", n: 1 }),
    "",
    `${JSON.stringify({ type: "b", s: "x".repeat(40) })}\r`,
    JSON.stringify({ type: "c", s: "é\u2028😀" }),
    "warning: not json",
    JSON.stringify({ type: "d", s: "y".repeat(80) }),
    JSON.stringify({ type: "e" }),
  ].join("\n");
  const bytes = Buffer.from(text);

  async function* cutAt(...offsets: number[]): AsyncGenerator<Uint8Array> {
    let from = 0;
    for (const to of [...offsets, bytes.length]) {
      yield bytes.subarray(from, to);
      from = to;
    }
  }
  async function all(source: AsyncIterable<Uint8Array>, maxLineBytes?: number): Promise<FramedLine[]> {
    const lines: FramedLine[] = [];
    for await (const line of jsonLines(source, maxLineBytes)) lines.push(line);
    return lines;
  }

  it("frames the same lines, ASCII or not, over the cap or not, whichever byte the stream is cut at", async () => {
    for (const maxLineBytes of [undefined, 60]) {
      const whole = await all(cutAt(), maxLineBytes);
      expect(whole.length).toBe(6);
      for (let i = 0; i <= bytes.length; i++) {
        expect(await all(cutAt(i), maxLineBytes), `cut at ${i}`).toEqual(whole);
        expect(await all(cutAt(i, Math.min(bytes.length, i + 5)), maxLineBytes), `cut at ${i} and ${i + 5}`).toEqual(whole);
      }
    }
  });

  it("hands each line to jsonLines.each until it answers false, then closes the source", async () => {
    let closed = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      try {
        yield bytes;
        yield Buffer.from('\n{"never":"read"}\n');
      } finally {
        closed = true;
      }
    }
    const seen: FramedLine[] = [];
    const take = (line: FramedLine) => seen.push(line) < 2;
    await jsonLines.each(source(), 1024, (value) => take({ kind: "json", value }), take);
    expect(seen).toEqual([
      { kind: "json", value: { type: "a", n: 1 } },
      { kind: "json", value: { type: "b", s: "x".repeat(40) } },
    ]);
    expect(closed).toBe(true);
  });
});
