// The stream masker hides a value however the stream is cut: split across chunks, in any of its
// spellings, in UTF-8 around it, and passes everything else on unchanged.

import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { createMasker, maskingStream, REDACTED } from "./index.js";
import { spellingsOf } from "./spellings.js";

/** What the stream passes on when fed `parts`, masking `value`. */
async function fedIn(parts: readonly Buffer[], value: string): Promise<string> {
  const stream = maskingStream(createMasker([value]));
  const out: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => out.push(Buffer.from(chunk)));
  for (const part of parts) stream.write(part);
  stream.end();
  await once(stream, "end");
  return Buffer.concat(out).toString("utf8");
}

/** What the stream passes on when `bytes` are written `size` at a time. */
async function streamed(bytes: Buffer, size: number, values: readonly string[]): Promise<string> {
  const stream = maskingStream(createMasker(values));
  const out: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => out.push(Buffer.from(chunk)));
  for (let at = 0; at < bytes.length; at += size) stream.write(bytes.subarray(at, at + size));
  stream.end();
  await once(stream, "end");
  return Buffer.concat(out).toString("utf8");
}

describe("maskingStream", () => {
  const key = "sk-ant-api03-streamed-0123456789";
  const spellings = [
    key,
    Buffer.from(key).toString("base64"),
    Buffer.from(`xy${key}`).toString("base64url"),
    Buffer.from(key).toString("hex"),
    encodeURIComponent(`é ${key}`),
  ];
  // Server-sent events, each spelling inside a line, some of them where a chunk ends.
  const text = `${spellings.map((spelling, i) => `event: e${i}\ndata: {"text":"é ${spelling} 😀"}\n\n`).join("")}data: ${key}`;
  const bytes = Buffer.from(text, "utf8");
  const expected = createMasker([key]).mask(text);

  it.each([1, 2, 3, 7, 64, bytes.length])("hides the key in every spelling, fed %i bytes at a time", async (size) => {
    const out = await streamed(bytes, size, [key]);
    expect(out).toBe(expected);
    expect(out).not.toContain(key);
    expect(out).not.toContain(Buffer.from(key).toString("hex"));
    expect(out.match(/\[REDACTED\]/g)?.length).toBe(spellings.length + 1);
  });

  it("hides a value cut at every byte of it between two chunks", async () => {
    const line = Buffer.from(`data: {"text":"${key}"}\n\n`);
    const from = line.indexOf(key);
    for (let cut = from; cut <= from + key.length; cut++) {
      const stream = maskingStream(createMasker([key]));
      const out: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => out.push(Buffer.from(chunk)));
      stream.write(line.subarray(0, cut));
      stream.end(line.subarray(cut));
      await once(stream, "end");
      expect(Buffer.concat(out).toString(), `cut at ${cut}`).toBe(`data: {"text":"${REDACTED}"}\n\n`);
    }
  });

  it("hides every spelling of a value cut at every byte of it between two chunks, and between three", async () => {
    // Every spelling the masker knows (see spellings.ts), each inside an event's line, between text
    // whose bytes could begin a spelling, and cut at each of its bytes (and, for three chunks, cut
    // again at each byte after that): any cut the stream masker settled too early shows here.
    const value = "sk-ant-api03-cut-0123456789é";
    const all = spellingsOf(value);
    expect(all.length).toBeGreaterThan(10);
    for (const spelling of all) {
      const line = Buffer.from(`data: {"text":"s sk ${spelling} %7"}\n\n`);
      const from = line.indexOf(spelling);
      const end = from + Buffer.byteLength(spelling);
      const want = `data: {"text":"s sk ${REDACTED} %7"}\n\n`;
      for (let cut = from - 2; cut <= end + 1; cut++) {
        expect(await fedIn([line.subarray(0, cut), line.subarray(cut)], value), `${spelling} cut at ${cut}`).toBe(want);
        for (let second = cut + 1; second <= end; second += 5) {
          const parts = [line.subarray(0, cut), line.subarray(cut, second), line.subarray(second)];
          expect(await fedIn(parts, value), `${spelling} cut at ${cut} and ${second}`).toBe(want);
        }
      }
    }
  });

  it("passes bytes with nothing to hide on unchanged", async () => {
    const plain = Buffer.from("event: ping\ndata: {}\n\n".repeat(500));
    expect(await streamed(plain, 4096, [key])).toBe(plain.toString());
    expect(await streamed(plain, 4096, [])).toBe(plain.toString());
  });
});
