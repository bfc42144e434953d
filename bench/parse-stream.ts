// Measures parseClaudeStream and parseCodexStream on large streams (16 and 64 MiB, fed in 64 KiB
// chunks) against the floor: the tightest plain code that splits the same bytes on LF and
// JSON.parses every line, streaming, so its memory is flat too: the faster of one decode per line
// and one per chunk. Prints MB/s, the ratio parser/floor and peak RSS growth, side by side.
// Measured, not asserted; each measurement runs in a fresh process, and the ways take turns.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseClaudeStream, parseCodexStream } from "../src/subpaths/agents.js";
import { parseRuns, runBench, summarize } from "./measure.js";

const MiB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const SIZES_MIB = [16, 64];
const CLIS = ["claude", "codex"] as const;
const WAYS = ["parser", "floor-line", "floor-chunk"] as const;
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

/** A floor: Buffer chunks, indexOf(LF), one decode per line, JSON.parse. Keeps only a partial line. */
async function floorByLine(stream: AsyncIterable<Uint8Array>): Promise<number> {
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
  if (carry !== undefined) {
    JSON.parse(carry.toString("utf8"));
    records++;
  }
  return records;
}

/** MB/s by the wall clock, and by the process's CPU time (user + system, GC threads too): less moved by other work on the machine. */
/**
 * The other floor: one decode per chunk (its whole lines), split on "\n", JSON.parse each slice.
 * Faster when the text is all ASCII (one-byte strings); slower when one character is not.
 */
async function floorByChunk(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let records = 0;
  let carry: Buffer | undefined;
  for await (const chunk of stream) {
    let buffer = chunk as Buffer;
    if (carry !== undefined) {
      buffer = Buffer.concat([carry, buffer]);
      carry = undefined;
    }
    const last = buffer.lastIndexOf(10);
    if (last === -1) {
      carry = buffer;
      continue;
    }
    const text = buffer.toString("utf8", 0, last);
    let start = 0;
    for (let nl = text.indexOf("\n", start); ; nl = text.indexOf("\n", start)) {
      const end = nl === -1 ? text.length : nl;
      if (end > start) {
        JSON.parse(text.slice(start, end));
        records++;
      }
      if (nl === -1) break;
      start = nl + 1;
    }
    if (last + 1 < buffer.length) carry = buffer.subarray(last + 1);
  }
  if (carry !== undefined) {
    JSON.parse(carry.toString("utf8"));
    records++;
  }
  return records;
}

type Row = {
  readonly cli: Cli;
  readonly way: Way;
  readonly sizeMiB: number;
  readonly mbPerSecond: number;
  readonly cpuMbPerSecond: number;
  readonly peakAboveStartMiB: number;
};

async function measure(cli: Cli, way: Way, sizeMiB: number): Promise<Row> {
  global.gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  let chunks = 0;
  // Reading RSS costs tens of µs; once a MiB is enough to see growth.
  const sample = () => (chunks++ % 16 === 0 ? (peak = Math.max(peak, process.memoryUsage.rss())) : peak);
  const began = performance.now();
  const cpuBefore = process.cpuUsage();
  const stream = generate(cli, sizeMiB * MiB, sample);
  if (way === "floor-line") await floorByLine(stream);
  else if (way === "floor-chunk") await floorByChunk(stream);
  else {
    const result = cli === "claude" ? await parseClaudeStream(stream) : await parseCodexStream(stream);
    if (!result.ok) throw new Error(`the ${cli} stream did not parse: ${result.error}`);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  const seconds = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    cli,
    way,
    sizeMiB,
    mbPerSecond: Math.round((sizeMiB * MiB) / 1e6 / seconds),
    cpuMbPerSecond: Math.round((sizeMiB * MiB) / 1e6 / cpuSeconds),
    peakAboveStartMiB: Math.round(((peak - start) / MiB) * 10) / 10,
  };
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
  const ratios = new Map<string, { wall: number[]; cpu: number[] }>();
  console.log(`parsing claude and codex streams fed in 64 KiB chunks: parser vs floor (split on LF + JSON.parse), ${runs} run(s)`);
  console.log(
    "MB/s by the wall clock; floor = the faster of one decode per line and one per chunk; ratio = parser / floor, by the wall clock and by CPU time; peak = peak RSS above start",
  );
  const header = ["run", "cli", "size", "parser MB/s", "floor MB/s", "ratio", "cpu ratio", "parser peak", "floor peak"];
  const widths = [4, 7, 7, 12, 16, 6, 10, 12, 11];
  const print = (cells: readonly string[]) =>
    console.log(cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join(" "));
  print(header);
  for (let run = 1; run <= runs; run++) {
    for (const cli of CLIS) {
      for (const sizeMiB of SIZES_MIB) {
        // Rotate which way goes first, so none always gets the warmer machine.
        const order = WAYS.map((_, i) => WAYS[(i + run) % WAYS.length] as Way);
        const got = new Map(order.map((way) => [way, one(cli, way, sizeMiB)] as const));
        const parser = got.get("parser") as Row;
        const byLine = got.get("floor-line") as Row;
        const byChunk = got.get("floor-chunk") as Row;
        // The floor is the faster of the two plain ways, in this run.
        const base = byLine.mbPerSecond >= byChunk.mbPerSecond ? byLine : byChunk;
        const wall = parser.mbPerSecond / base.mbPerSecond;
        const cpu = parser.cpuMbPerSecond / Math.max(byLine.cpuMbPerSecond, byChunk.cpuMbPerSecond);
        const key = `${cli} ${sizeMiB} MiB`;
        const seen = ratios.get(key) ?? { wall: [], cpu: [] };
        ratios.set(key, { wall: [...seen.wall, wall], cpu: [...seen.cpu, cpu] });
        print([
          String(run),
          cli,
          `${sizeMiB} MiB`,
          String(parser.mbPerSecond),
          `${base.mbPerSecond} ${base === byLine ? "line" : "chunk"}`,
          wall.toFixed(2),
          cpu.toFixed(2),
          `${parser.peakAboveStartMiB} MiB`,
          `${base.peakAboveStartMiB} MiB`,
        ]);
      }
    }
  }
  console.log(`median ratios over ${runs} run(s), target >= ${TARGET_RATIO}:`);
  for (const [key, { wall, cpu }] of ratios) {
    const w = summarize(wall).median;
    const c = summarize(cpu).median;
    console.log(`  ${key.padEnd(15)} wall ${w.toFixed(3)} ${w >= TARGET_RATIO ? "MET " : "MISS"}  cpu ${c.toFixed(3)} ${c >= TARGET_RATIO ? "MET" : "MISS"}`);
  }
  return 0;
}

runBench(main);
