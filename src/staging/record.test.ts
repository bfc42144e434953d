// The Run record's streams on the local disk (no engine): a secret is masked before a byte of it
// reaches the file, wherever the chunks split it and wherever the cap cuts; text is kept whole.

import { lstat, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMasker, REDACTED } from "../redact/index.js";
import { createRecordStream, writeAtomically } from "./record.js";

const SECRET = "sk-live-7f3a9c1e2b";
const OTHER_SECRET = "ghp_Zx81kQ";
const CHUNK_SIZES = [1, 2, 3, 7, 64];

let scratch: string;
let path: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "agentcage-record-"));
  path = join(scratch, "stdout.txt");
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Writes `chunks` through a record stream masking `secrets`, and returns the file's text. */
async function record(chunks: readonly Uint8Array[], secrets: readonly string[] = [SECRET], capBytes = 1024 * 1024): Promise<string> {
  const stream = createRecordStream(path, createMasker(secrets), capBytes);
  for (const chunk of chunks) stream.write(chunk);
  await stream.close();
  return readFile(path, "utf8");
}

function chunked(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

function splitAt(bytes: Uint8Array, index: number): Uint8Array[] {
  return [bytes.subarray(0, index), bytes.subarray(index)];
}

describe("createRecordStream", () => {
  const text = Buffer.from(`before ${SECRET} after`);
  const masked = `before ${REDACTED} after`;

  it("masks a secret written in one chunk", async () => {
    expect(await record([text])).toBe(masked);
  });

  it("masks a secret split in two chunks at every index", async () => {
    for (let index = 0; index <= text.length; index += 1) {
      expect(await record(splitAt(text, index)), `split at ${index}`).toBe(masked);
    }
  });

  it.each(CHUNK_SIZES)("masks a secret fed %i bytes at a time", async (size) => {
    expect(await record(chunked(text, size))).toBe(masked);
  });

  it("masks a secret that ends the stream", async () => {
    expect(await record(chunked(Buffer.from(`token=${SECRET}`), 1))).toBe(`token=${REDACTED}`);
  });

  it.each([...CHUNK_SIZES, 10_000])("masks several secrets, each more than once, fed %i bytes at a time", async (size) => {
    const several = Buffer.from(`a ${SECRET} b ${OTHER_SECRET} c ${SECRET}${OTHER_SECRET} d ${OTHER_SECRET}\n`);

    expect(await record(chunked(several, size), [SECRET, OTHER_SECRET])).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}${REDACTED} d ${REDACTED}\n`);
  });

  it("masks a secret as it appears escaped inside JSON", async () => {
    const quoted = 'pa"ss\\word-42';
    const json = Buffer.from(JSON.stringify({ password: quoted }));

    expect(await record(chunked(json, 1), [quoted])).toBe(`{"password":"${REDACTED}"}`);
  });

  it.each([...CHUNK_SIZES, 10_000])("keeps non-ASCII text intact fed %i bytes at a time, splitting characters", async (size) => {
    const words = "naïve café — 日本語のテキスト ✓ Ωmega\n";

    expect(await record(chunked(Buffer.from(`${words}${SECRET}${words}`), size))).toBe(`${words}${REDACTED}${words}`);
  });

  it("writes text as it is when no secret is registered", async () => {
    expect(await record(chunked(Buffer.from("plain text ✓\n"), 1), [])).toBe("plain text ✓\n");
  });

  it("writes an empty file when nothing is written", async () => {
    expect(await record([])).toBe("");
  });

  it("makes the file 0600", async () => {
    await record([text]);

    expect((await lstat(path)).mode & 0o777).toBe(0o600);
  });

  it("stops at capBytes and ignores what comes after", async () => {
    const bytes = Buffer.from("0123456789abcdef");

    expect(await record([...chunked(bytes, 3), Buffer.from("more")], [], 10)).toBe("0123456789");
  });

  it("never writes half a character cut by the cap", async () => {
    // "é" is two bytes; the cap of 5 keeps only its first.
    expect(await record([Buffer.from("abcdé")], [], 5)).toBe("abcd");
  });

  it("never writes the start of a secret cut by the cap, wherever the cap falls in it", async () => {
    const prefix = SECRET.slice(0, 6);
    const start = Buffer.byteLength("before ");
    for (let cap = start + 1; cap < start + SECRET.length; cap += 1) {
      for (const size of [1, 4, text.length]) {
        const written = await record(chunked(text, size), [SECRET], cap);
        expect(written, `cap ${cap}, chunks of ${size}`).not.toContain(prefix);
        expect("before ".startsWith(written), `cap ${cap}, chunks of ${size}: ${JSON.stringify(written)}`).toBe(true);
      }
    }
  });
});

describe("writeAtomically", () => {
  it("writes the whole content, 0600, and leaves no temporary file", async () => {
    const outcome = join(scratch, "outcome.json");

    await writeAtomically(outcome, '{"ok":true}\n');

    expect(await readFile(outcome, "utf8")).toBe('{"ok":true}\n');
    expect((await lstat(outcome)).mode & 0o777).toBe(0o600);
    expect(await readdir(scratch)).toEqual(["outcome.json"]);
  });

  it("replaces a file that is there, leaving no temporary file", async () => {
    const done = join(scratch, "done");
    await writeFile(done, "an older, longer marker\n");

    await writeAtomically(done, "2030-01-02T03:04:05.678Z\n");

    expect(await readFile(done, "utf8")).toBe("2030-01-02T03:04:05.678Z\n");
    expect(await readdir(scratch)).toEqual(["done"]);
  });
});

describe("createRecordStream at the edges", () => {
  it("keeps a character outside the BMP whole where the held-back tail starts", async () => {
    const text = await record([Buffer.from("😀😀😀😀"), Buffer.from(" tail")], ["ABCDEFGH"]);
    expect(text).toBe("😀😀😀😀 tail");
  });

  it("keeps all of an input that is exactly capBytes long", async () => {
    expect(await record([Buffer.from("0123456789")], ["ABCDEFGH"], 10)).toBe("0123456789");
  });
});
