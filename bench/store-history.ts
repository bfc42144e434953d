// What a history of Runs kept costs the service: start-up, a list page (first, middle, filtered by
// state, label and tenant), a usage query, a submit and memory, with no Runs, 1,000 and 100,000 kept.
// The histories are written through the file store's own code (store-probe.ts build) into a cache
// reused while its marker says it is whole; each figure comes from a fresh process per directory, the
// three taking turns round after round, so drift on the machine hits all three. Measured, never asserted.

import { spawn } from "node:child_process";
import { mkdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BenchFailure, parseRuns, runBench } from "./measure.js";
import { HISTORY_FORMAT, HISTORY_MARKER, type History, type ProbeResult, QUERY_NAMES } from "./store-history-format.js";
import { machineLine } from "./trees.js";

const DEFAULT_ROUNDS = 3;
const MAX_ROUNDS = 20;
/** Runs kept in each directory measured: none, the 1k the ratios are taken against, and the 100k of the targets. */
const SIZES = [0, 1_000, 100_000] as const;
/** Each query timed this many times per probe, and submits made. */
const QUERIES = 200;
const SUBMITS = 100;
/** A probe (or a build) that takes longer than this has hung. */
const PROBE_BOUND_MS = 15 * 60_000;
const BUILD_BOUND_MS = 60 * 60_000;
const BUILD_THREADS = 32;

/** The targets of issue 45 item 1. */
const STARTUP_MOST_MS = 2000;
const STARTUP_MOST_RATIO = 1.5;
const QUERY_MOST_MS = 50;
const QUERY_MOST_RATIO = 2;
const SUBMIT_MOST_RATIO = 1.2;

const PROBE = fileURLToPath(new URL("./store-probe.js", import.meta.url));
const label = (size: number) => (size === 0 ? "empty" : size >= 1000 ? `${size / 1000}k` : String(size));
const verdict = (ok: boolean) => (ok ? "ok" : "MISS");

/** Where the histories are kept between runs: BENCH_STORE_CACHE, else a directory under the system's temporary one. */
function cacheRoot(): string {
  return process.env["BENCH_STORE_CACHE"] ?? join(os.tmpdir(), "agentcage-bench-store-history");
}

/** One probe process: its stdout's last line; `env` is added to this process's (BENCH_STORE_CODE: another build's runs/index.js). */
function probe(args: readonly string[], bound: number, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", PROBE, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), bound);
    child.once("error", reject);
    child.once("exit", (exit, signal) => {
      clearTimeout(timer);
      if (exit === 0) resolve(out.trim().split("\n").at(-1) ?? "");
      else reject(new BenchFailure(`the probe ${args.join(" ")} exited with ${exit ?? signal}${signal === "SIGKILL" ? ` (bound ${bound / 1000} s)` : ""}`));
    });
  });
}

/** The history of `size` Runs under the cache: as it is when its marker says it is whole, else written anew. */
async function history(size: number): Promise<{ readonly dir: string; readonly history: History }> {
  const dir = join(cacheRoot(), size === 0 ? "empty" : `runs-${size}`);
  const kept = await readFile(join(dir, HISTORY_MARKER), "utf8").then(
    (text) => JSON.parse(text) as History,
    () => undefined,
  );
  if (kept?.format === HISTORY_FORMAT && kept.runs === size) {
    console.log(`history of ${size === 0 ? "no" : label(size)} Runs: kept from ${kept.builtAt} (written in ${kept.buildSeconds.toFixed(0)} s), ${dir}`);
    return { dir, history: kept };
  }
  console.log(`history of ${size === 0 ? "no" : label(size)} Runs: writing it under ${dir}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // The build's file writes wait on libuv's threads, not on its CPU: more of them write 100k Runs sooner.
  await probe([dir, "build", String(size)], BUILD_BOUND_MS, { UV_THREADPOOL_SIZE: process.env["UV_THREADPOOL_SIZE"] ?? String(BUILD_THREADS) });
  const built = JSON.parse(await readFile(join(dir, HISTORY_MARKER), "utf8")) as History;
  console.log(`  written in ${built.buildSeconds.toFixed(0)} s`);
  return { dir, history: built };
}

/** By nearest rank. */
function percentile(samples: readonly number[], fraction: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** One probe's samples of `name`, pooled over rounds. */
const pooled = (results: readonly ProbeResult[], name: string): number[] => results.flatMap((result) => result.samples[name] ?? []);

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const pad = (text: string, width: number) => text.padEnd(width);

async function main(): Promise<number> {
  const rounds = parseRuns(process.argv.slice(2), process.env, DEFAULT_ROUNDS, MAX_ROUNDS);
  const before = process.env["BENCH_STORE_BEFORE"];
  console.log(`a store with 0, 1k and 100k Runs kept: ${rounds} interleaved rounds, a fresh process per directory each round`);
  console.log(machineLine(os.tmpdir()));
  const histories = new Map<number, { readonly dir: string; readonly history: History }>();
  for (const size of SIZES) histories.set(size, await history(size));

  const results = new Map<number, ProbeResult[]>(SIZES.map((size) => [size, []]));
  for (let round = 0; round < rounds; round += 1) {
    // Each round starts with another size, so none is always the first after a pause.
    const order = SIZES.map((_, at) => SIZES[(at + round) % SIZES.length] as number);
    for (const size of order) {
      const { dir, history: kept } = histories.get(size)!;
      const line = await probe([dir, "full", kept.middle, String(QUERIES), String(SUBMITS), kept.builtAt], PROBE_BOUND_MS);
      results.get(size)!.push(JSON.parse(line) as ProbeResult);
    }
    console.log(`  round ${round + 1} of ${rounds} done`);
  }

  const at = (size: number) => results.get(size)!;
  const big = SIZES[2];
  const small = SIZES[1];
  console.log("");
  console.log(`start-up: the process's start to recover() done (node, the service's modules, the store opened, its Runs recovered); median of ${rounds} (max)`);
  const startup = new Map(SIZES.map((size) => [size, median(at(size).map((result) => result.startupMs))]));
  for (const size of SIZES) {
    const all = at(size);
    console.log(
      `  ${pad(label(size), 6)} ${pad(ms(startup.get(size)!), 10)} (max ${ms(Math.max(...all.map((result) => result.startupMs)))}); recover() alone ${ms(median(all.map((result) => result.recoverMs)))}, modules ${ms(median(all.map((result) => result.importMs)))}`,
    );
  }
  const startupRatio = startup.get(big)! / startup.get(0)!;
  console.log(`  ${label(big)}: ${ms(startup.get(big)!)} against the target <= ${STARTUP_MOST_MS} ms: ${verdict(startup.get(big)! <= STARTUP_MOST_MS)}`);
  console.log(
    `  ${label(big)} / empty: ${startupRatio.toFixed(2)}x against the target <= ${STARTUP_MOST_RATIO}x: ${verdict(startupRatio <= STARTUP_MOST_RATIO)}`,
  );

  console.log("");
  console.log(`memory after recover() and a collection, median of ${rounds}`);
  const heap = new Map(SIZES.map((size) => [size, median(at(size).map((result) => result.heapBytes))]));
  const rss = new Map(SIZES.map((size) => [size, median(at(size).map((result) => result.rssBytes))]));
  for (const size of SIZES)
    console.log(`  ${pad(label(size), 6)} heap ${(heap.get(size)! / 2 ** 20).toFixed(1)} MiB, rss ${(rss.get(size)! / 2 ** 20).toFixed(1)} MiB`);
  for (const size of [small, big]) {
    const perHeap = (heap.get(size)! - heap.get(0)!) / size;
    const perRss = (rss.get(size)! - rss.get(0)!) / size;
    console.log(`  per Run kept at ${label(size)} (its figure minus empty's, over ${size}): heap ${perHeap.toFixed(0)} bytes, rss ${perRss.toFixed(0)} bytes`);
  }

  console.log("");
  console.log(
    `per request, in process through the run service: p99 of ${QUERIES * rounds} each (${SUBMITS * rounds} submits); targets at ${label(big)}: <= ${QUERY_MOST_MS} ms and <= ${QUERY_MOST_RATIO}x ${label(small)}, submit <= ${SUBMIT_MOST_RATIO}x ${label(small)}`,
  );
  console.log(`  ${pad("", 18)} ${SIZES.map((size) => pad(label(size), 10)).join(" ")} ratio ${label(big)}/${label(small)}`);
  for (const name of [...QUERY_NAMES, "submit"]) {
    const p99 = new Map(SIZES.map((size) => [size, percentile(pooled(at(size), name), 0.99)]));
    const ratio = p99.get(big)! / p99.get(small)!;
    const ok = name === "submit" ? ratio <= SUBMIT_MOST_RATIO : p99.get(big)! <= QUERY_MOST_MS && ratio <= QUERY_MOST_RATIO;
    const cells = SIZES.map((size) => pad(Number.isNaN(p99.get(size)!) ? "-" : ms(p99.get(size)!), 10)).join(" ");
    console.log(`  ${pad(name, 18)} ${cells} ${ratio.toFixed(2)}x ${verdict(ok)}`);
  }

  if (before !== undefined && before !== "") await compareBefore(before, rounds);
  return 0;
}

/** Start-up of another build's code (BENCH_STORE_BEFORE: its runs/index.js) against this one's, over none, 1k and 10k Runs kept. */
async function compareBefore(code: string, rounds: number): Promise<void> {
  const sizes = [0, 1_000, 10_000];
  const dirs = new Map<number, string>();
  for (const size of sizes) dirs.set(size, (await history(size)).dir);
  const taken = new Map<string, number[]>();
  for (let round = 0; round < rounds; round += 1) {
    for (const size of sizes) {
      for (const which of ["before", "now"] as const) {
        const line = await probe([dirs.get(size)!, "startup"], PROBE_BOUND_MS, which === "before" ? { BENCH_STORE_CODE: code } : {});
        const key = `${which} ${size}`;
        taken.set(key, [...(taken.get(key) ?? []), (JSON.parse(line) as ProbeResult).startupMs]);
      }
    }
  }
  console.log("");
  console.log(`start-up, ${code} against this build: median of ${rounds}`);
  for (const size of sizes) {
    const then = median(taken.get(`before ${size}`)!);
    const now = median(taken.get(`now ${size}`)!);
    console.log(`  ${pad(label(size), 6)} before ${pad(ms(then), 10)} now ${pad(ms(now), 10)} ${(now / then).toFixed(2)}x`);
  }
}

runBench(main);
