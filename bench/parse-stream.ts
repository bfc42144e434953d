// Measures parseClaudeStream and parseCodexStream on large streams (16 and 64 MiB, fed in 64 KiB
// chunks) against the floor: the tightest plain code that splits the same bytes on LF and
// JSON.parses every line, streaming, so its memory is flat too. Prints MB/s, the ratio
// parser/floor and peak RSS growth, side by side. Measured, not asserted; each measurement runs
// in a fresh process, and the two ways take turns so drift on the machine hits both.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseClaudeStream, parseCodexStream } from "../src/index.js";
import { parseRuns, runBench, summarize } from "./measure.js";

const MiB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const SIZES_MIB = [16, 64];
const CLIS = ["claude", "codex"] as const;
const WAYS = ["parser", "floor"] as const;
const DEFAULT_RUNS = 3;
const TARGET_RATIO = 0.9;
type Cli = (typeof CLIS)[number];
type Way = (typeof WAYS)[number];

/** The real CLI's lines: its first line, then the lines up to the terminal one over and over, then that one. */
function streamParts(cli: Cli): { head: Buffer; body: Buffer; tail: Buffer } {
  const file = new URL(`../../test/fixtures/${cli}/tool_write_bash.jsonl`, import.meta.url);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  return {
    head: Buffer.from(`${lines[0]}\n`),
    body: Buffer.from(`${lines.slice(1, -1).join("\n")}\n`),
    tail: Buffer.from(`${lines.at(-1)}\n`),
  };
}

/**
 * Yields `totalBytes` of stream in CHUNK_BYTES chunks cut at any byte (so lines span chunks), made
 * as it goes: the input is never held whole, and each chunk is a fresh Buffer.
 */
async function* generate(cli: Cli, totalBytes: number, sample: () => void): AsyncGenerator<Uint8Array> {
  const { head, body, tail } = streamParts(cli);
  const bodyBytes = Math.max(body.length, totalBytes - head.length - tail.length);
  const reps = Math.ceil((CHUNK_BYTES + body.length) / body.length) + 1;
  const ring = Buffer.concat(Array.from({ length: reps }, () => body));
  yield Buffer.from(head);
  let sent = 0;
  const whole = Math.floor(bodyBytes / body.length) * body.length;
  while (sent < whole) {
    const n = Math.min(CHUNK_BYTES, whole - sent);
    const at = sent % body.length;
    sample();
    yield Buffer.from(ring.subarray(at, at + n));
    sent += n;
  }
  yield Buffer.from(tail);
}

/** The floor: Buffer chunks, indexOf(LF), one decode per line, JSON.parse. Keeps only a partial line. */
async function floor(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let records = 0;
  let carry: Buffer | undefined;
  for await (const chunk of stream) {
    let buffer = chunk as Buffer;
    if (carry !== undefined) {
      buffer = Buffer.concat([carry, buffer]);
      carry = undefined;
    }
    let start = 0;
    for (let nl = buffer.indexOf(10, start); nl !== -1; nl = buffer.indexOf(10, start)) {
      if (nl > start) {
        JSON.parse(buffer.toString("utf8", start, nl));
        records++;
      }
      start = nl + 1;
    }
    if (start < buffer.length) carry = buffer.subarray(start);
  }
  if (carry !== undefined) (JSON.parse(carry.toString("utf8")), records++);
  return records;
}

type Row = { readonly cli: Cli; readonly way: Way; readonly sizeMiB: number; readonly mbPerSecond: number; readonly peakAboveStartMiB: number };

async function measure(cli: Cli, way: Way, sizeMiB: number): Promise<Row> {
  global.gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  let chunks = 0;
  // Reading RSS costs tens of µs; once a MiB is enough to see growth.
  const sample = () => (chunks++ % 16 === 0 ? (peak = Math.max(peak, process.memoryUsage.rss())) : peak);
  const began = performance.now();
  const stream = generate(cli, sizeMiB * MiB, sample);
  if (way === "floor") await floor(stream);
  else {
    const result = cli === "claude" ? await parseClaudeStream(stream) : await parseCodexStream(stream);
    if (!result.ok) throw new Error(`the ${cli} stream did not parse: ${result.error}`);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  const seconds = (performance.now() - began) / 1000;
  return { cli, way, sizeMiB, mbPerSecond: Math.round((sizeMiB * MiB) / 1e6 / seconds), peakAboveStartMiB: Math.round(((peak - start) / MiB) * 10) / 10 };
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args[0] === "--one") {
    console.log(JSON.stringify(await measure(args[1] as Cli, args[2] as Way, Number(args[3]))));
    return 0;
  }
  const runs = parseRuns(args, process.env, DEFAULT_RUNS, 50);
  const self = fileURLToPath(import.meta.url);
  const one = (cli: Cli, way: Way, sizeMiB: number): Row =>
    JSON.parse(execFileSync(process.execPath, ["--expose-gc", self, "--one", cli, way, String(sizeMiB)], { encoding: "utf8" })) as Row;
  const ratios = new Map<string, number[]>();
  console.log(`parsing claude and codex streams fed in 64 KiB chunks: parser vs floor (split on LF + JSON.parse), ${runs} run(s)`);
  console.log(`${"run".padEnd(4)}${"cli".padEnd(8)}${"size".padStart(7)}${"parser MB/s".padStart(13)}${"floor MB/s".padStart(12)}${"ratio".padStart(7)}${"parser peak".padStart(13)}${"floor peak".padStart(12)}`);
  for (let run = 1; run <= runs; run++) {
    for (const cli of CLIS) {
      for (const sizeMiB of SIZES_MIB) {
        // Alternate which way goes first, so neither always gets the warmer machine.
        const order = run % 2 === 1 ? WAYS : ([...WAYS].reverse() as Way[]);
        const got = new Map(order.map((way) => [way, one(cli, way, sizeMiB)] as const));
        const parser = got.get("parser") as Row;
        const base = got.get("floor") as Row;
        const ratio = parser.mbPerSecond / base.mbPerSecond;
        const key = `${cli} ${sizeMiB}`;
        ratios.set(key, [...(ratios.get(key) ?? []), ratio]);
        console.log(
          `${String(run).padEnd(4)}${cli.padEnd(8)}${`${sizeMiB} MiB`.padStart(7)}${String(parser.mbPerSecond).padStart(13)}${String(base.mbPerSecond).padStart(12)}${ratio.toFixed(2).padStart(7)}${`${parser.peakAboveStartMiB} MiB`.padStart(13)}${`${base.peakAboveStartMiB} MiB`.padStart(12)}`,
        );
      }
    }
  }
  console.log(`median ratio over ${runs} run(s), target >= ${TARGET_RATIO}:`);
  for (const [key, values] of ratios) {
    const median = summarize(values).median;
    console.log(`  ${key.padEnd(12)} MiB ${median.toFixed(2)} ${median >= TARGET_RATIO ? "MET" : "MISS"}`);
  }
  return 0;
}

runBench(main);
