// Measures the Harvest against `cp -a` on two trees, interleaved in one process on one file system:
// 2,000 files of 16 KiB (many small files: the per-file cost of the Harvest's checks) and 20 files
// of 50 MB (few large ones: the cost of moving bytes). Measured, not asserted: it prints the ratios
// against the 1.5x target and exits non-zero only when a copy went wrong (a refusal, a throw, a cp
// that did not exit 0, a tree that differs). The small tree's copies are kept to the end: on ext4
// without a journal, files created soon after a delete step over the deleted inodes.

import { mkdirSync, closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { harvest, type HarvestOptions } from "../src/staging/harvest/index.js";
import { BenchFailure, parseRuns, runBench, summarize } from "./measure.js";
import { checkFreeSpace, cpArchive, diskBytes, inScratch, machineLine, pattern, rssMiB, sameTally, slice, sync, tallyTree, type Tally } from "./trees.js";

const DEFAULT_RUNS = 15;
const MAX_RUNS = 1000;
/** The most the Harvest may take, as a multiple of cp -a's time on the same tree (issue 45). */
const TARGET_RATIO = 1.5;
/** The small tree: SMALL_DIRS directories of SMALL_FILES_PER_DIR files of SMALL_FILE_BYTES. */
const SMALL_DIRS = 20;
const SMALL_FILES_PER_DIR = 100;
const SMALL_FILE_BYTES = 16 * 1024;
/** The large tree: LARGE_FILES files of LARGE_FILE_BYTES in one directory. */
const LARGE_FILES = 20;
const LARGE_FILE_BYTES = 50_000_000;
/** A large file is written this many bytes at a time (less than the pattern, so each write is another slice of it). */
const WRITE_BYTES = 512 * 1024;

type Tree = { readonly name: string; readonly root: string; readonly tally: Tally; readonly options: HarvestOptions; readonly keepCopies: boolean };

function makeSmallTree(root: string, bytes: Buffer): Tally {
  mkdirSync(root);
  let files = 0;
  for (let d = 0; d < SMALL_DIRS; d++) {
    const dir = path.join(root, `part-${String(d).padStart(2, "0")}`);
    mkdirSync(dir);
    for (let f = 0; f < SMALL_FILES_PER_DIR; f++) {
      writeFileSync(path.join(dir, `file-${String(f).padStart(3, "0")}.bin`), slice(bytes, files, SMALL_FILE_BYTES), { mode: 0o644 });
      files += 1;
    }
  }
  return { files, directories: SMALL_DIRS, bytes: files * SMALL_FILE_BYTES };
}

function makeLargeTree(root: string, bytes: Buffer): Tally {
  mkdirSync(root);
  for (let f = 0; f < LARGE_FILES; f++) {
    const fd = openSync(path.join(root, `large-${String(f).padStart(2, "0")}.bin`), "wx", 0o644);
    try {
      for (let written = 0, part = 0; written < LARGE_FILE_BYTES; part++) {
        const size = Math.min(WRITE_BYTES, LARGE_FILE_BYTES - written);
        const wrote = writeSync(fd, slice(bytes, f * 1000 + part, size));
        if (wrote === 0) throw new BenchFailure(`a write of the large tree wrote nothing at ${written} bytes`);
        written += wrote;
      }
    } finally {
      closeSync(fd);
    }
  }
  return { files: LARGE_FILES, directories: 0, bytes: LARGE_FILES * LARGE_FILE_BYTES };
}

/** Limits that let the whole tree through: the small tree has 2,020 entries, the large one files past 8 MiB. */
function limitsFor(tally: Tally): HarvestOptions {
  return {
    maxEntries: tally.files + tally.directories,
    maxFileBytes: Math.max(Math.ceil(tally.bytes / Math.max(tally.files, 1)), 1),
    maxTotalBytes: tally.bytes,
  };
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  return inScratch("agentcage-bench-harvest-", async (scratch) => {
    console.log(`harvest vs cp -a: ${runs} interleaved rounds each (the first way of a round alternates), after one warm-up each, under ${scratch}`);
    console.log(machineLine(scratch));
    const bytes = pattern();
    const smallRoot = path.join(scratch, "small");
    const largeRoot = path.join(scratch, "large");
    const smallTally = makeSmallTree(smallRoot, bytes);
    const largeTally = makeLargeTree(largeRoot, bytes);
    const copies = path.join(scratch, "copies");
    mkdirSync(copies);
    sync();
    checkFreeSpace(scratch, 2 * (runs + 1) * diskBytes(smallRoot) + 2 * diskBytes(largeRoot), runs);
    const trees: Tree[] = [
      { name: `${SMALL_DIRS * SMALL_FILES_PER_DIR} files of 16 KiB`, root: smallRoot, tally: smallTally, options: limitsFor(smallTally), keepCopies: true },
      { name: `${LARGE_FILES} files of 50 MB`, root: largeRoot, tally: largeTally, options: limitsFor(largeTally), keepCopies: false },
    ];
    let n = 0;
    const fresh = (): string => path.join(copies, `c${n++}`);

    for (const tree of trees) {
      const ours = async (check: boolean): Promise<number> => {
        const destination = fresh();
        const started = performance.now();
        const result = await harvest(tree.root, destination, tree.options);
        const ms = performance.now() - started;
        if (!result.ok) throw new BenchFailure(`harvest refused: ${result.refusal.reason} at ${result.refusal.entry}: ${result.refusal.message}`);
        sameTally("harvest's result", result, tree.tally);
        await settle(destination, tree, check);
        return ms;
      };
      const cp = async (check: boolean): Promise<number> => {
        const destination = fresh();
        const started = performance.now();
        await cpArchive(tree.root, destination);
        const ms = performance.now() - started;
        await settle(destination, tree, check);
        return ms;
      };
      // Warm-ups, not counted: the copies checked entry by entry.
      await ours(true);
      await cp(true);
      const oursMs: number[] = [];
      const cpMs: number[] = [];
      for (let round = 0; round < runs; round++) {
        if (round % 2 === 0) {
          oursMs.push(await ours(false));
          cpMs.push(await cp(false));
        } else {
          cpMs.push(await cp(false));
          oursMs.push(await ours(false));
        }
      }
      report(tree, oursMs, cpMs);
    }
    console.log("");
    console.log(`peak RSS of this process at the end: ${rssMiB()} MiB`);
  });
}

/** Checks a warm-up's copy, writes back what the copy left dirty (untimed), and removes a large copy. */
async function settle(destination: string, tree: Tree, check: boolean): Promise<void> {
  if (check) sameTally(`the copy of ${tree.name}`, tallyTree(destination), tree.tally);
  sync();
  if (!tree.keepCopies) {
    await rm(destination, { recursive: true, force: true });
    sync();
  }
}

/** Median and min of each way, the ratio of the medians against the target, and the median of the rounds' own ratios. */
function report(tree: Tree, oursMs: readonly number[], cpMs: readonly number[]): void {
  const o = summarize(oursMs);
  const c = summarize(cpMs);
  const ratio = o.median / c.median;
  const paired = summarize(oursMs.map((ms, i) => ms / (cpMs[i] as number)));
  console.log("");
  console.log(`${tree.name} (${(tree.tally.bytes / 1e6).toFixed(1)} MB)`);
  console.log(`${"ms".padEnd(12)}${["median", "p90", "min"].map((h) => h.padStart(10)).join("")}`);
  for (const [name, s] of [
    ["harvest()", o],
    ["cp -a", c],
  ] as const) {
    console.log(`${name.padEnd(12)}${[s.median, s.p90, s.min].map((v) => v.toFixed(1).padStart(10)).join("")}`);
  }
  console.log(
    `median(harvest) / median(cp -a) = ${ratio.toFixed(2)} (target <= ${TARGET_RATIO}: ${ratio <= TARGET_RATIO ? "ok" : "MISS"}); ` +
      `median of the rounds' ratios = ${paired.median.toFixed(2)}, min(harvest) / min(cp -a) = ${(o.min / c.min).toFixed(2)}`,
  );
}

runBench(main);
