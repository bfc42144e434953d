// Measures parseClaudeStream on a large claude stream: throughput in MB/s and peak memory above
// the starting point, at two sizes, against what a user would otherwise write (collect all of
// stdout, split on newlines, JSON.parse each line). Ours must stay flat as the stream grows.
// Measured, not asserted. Run each size in a fresh process so one cannot warm the other's heap.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseClaudeStream } from "../src/index.js";

const MiB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const SIZES_MIB = [16, 64];
const fixtureDir = new URL("../../test/fixtures/claude/", import.meta.url);

/** The real CLI's lines: init first, then its assistant and user lines over and over, then result. */
function streamParts(): { head: Buffer; body: Buffer; tail: Buffer } {
  const lines = readFileSync(new URL("tool_write_bash.jsonl", fixtureDir), "utf8").trimEnd().split("\n");
  return {
    head: Buffer.from(`${lines[0]}\n`),
    body: Buffer.from(`${lines.slice(1, -1).join("\n")}\n`),
    tail: Buffer.from(`${lines.at(-1)}\n`),
  };
}

/** Yields `totalBytes` of stream in CHUNK_BYTES chunks, made as it goes: the input is never held whole. */
async function* generate(totalBytes: number, sample: () => void): AsyncGenerator<Uint8Array> {
  const { head, body, tail } = streamParts();
  const repeat = Math.max(1, Math.floor((totalBytes - head.length - tail.length) / body.length));
  const block = Buffer.concat(Array.from({ length: Math.max(1, Math.floor(CHUNK_BYTES / body.length)) }, () => body));
  const perBlock = Math.floor(block.length / body.length);
  yield head;
  let left = repeat;
  for (; left >= perBlock; left -= perBlock) {
    sample();
    yield Buffer.from(block);
  }
  for (; left > 0; left--) yield Buffer.from(body);
  yield tail;
}

async function naive(stream: AsyncIterable<Uint8Array>): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  let records = 0;
  for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) if (line.trim() !== "") (JSON.parse(line), records++);
  return records;
}

async function measure(way: "parseClaudeStream" | "collect-then-parse", sizeMiB: number): Promise<void> {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
  const began = performance.now();
  const stream = generate(sizeMiB * MiB, sample);
  if (way === "parseClaudeStream") {
    const result = await parseClaudeStream(stream);
    if (!result.ok) throw new Error(`the stream did not parse: ${result.error}`);
  } else await naive(stream);
  sample();
  const seconds = (performance.now() - began) / 1000;
  console.log(JSON.stringify({ way, sizeMiB, mbPerSecond: Math.round((sizeMiB * MiB) / 1e6 / seconds), peakAboveStartMiB: Math.round(((peak - start) / MiB) * 10) / 10 }));
}

const [way, size] = process.argv.slice(2);
if (way !== undefined && size !== undefined) {
  await measure(way as "parseClaudeStream", Number(size));
} else {
  // The driver: each measurement in its own process.
  const self = fileURLToPath(import.meta.url);
  const rows: Array<Record<string, number | string>> = [];
  for (const sizeMiB of SIZES_MIB) {
    for (const w of ["parseClaudeStream", "collect-then-parse"]) {
      rows.push(JSON.parse(execFileSync(process.execPath, ["--expose-gc", self, w, String(sizeMiB)], { encoding: "utf8" })) as Record<string, number | string>);
    }
  }
  console.log("parsing a claude stream-json stream, fed in 64 KiB chunks");
  console.log(`${"way".padEnd(20)} ${"size".padStart(8)} ${"MB/s".padStart(8)} ${"peak RSS above start".padStart(22)}`);
  for (const r of rows) console.log(`${String(r["way"]).padEnd(20)} ${`${r["sizeMiB"]} MiB`.padStart(8)} ${String(r["mbPerSecond"]).padStart(8)} ${`${r["peakAboveStartMiB"]} MiB`.padStart(22)}`);
}
