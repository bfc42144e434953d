// Measures the wall time of staging a 10,000-file input tree (prepareRunDirectory) and of
// harvesting 2000 entries / just under 64 MiB (harvest) against `cp -a` of the same trees, in the
// same run, on the same file system. Measured, not asserted: it prints the ratios and exits non-zero
// only when a copy went wrong (a throw, a refusal, a cp that did not exit 0, a tree that differs).
// No copy is removed before the end: on ext4 without a journal, every file created within 60 s of
// a delete (300 s until written back) steps over the recently deleted inodes, which swamps both ways.

import { BenchFailure, parseRuns, summarize, type Summary, runBench } from "./measure.js";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, statfsSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MAX_HARVEST_ENTRIES, MAX_HARVEST_FILE_BYTES, MAX_HARVEST_TOTAL_BYTES, harvest } from "../src/staging/harvest/index.js";
import { prepareRunDirectory } from "../src/staging/index.js";

const DEFAULT_RUNS = 5;
const MAX_RUNS = 1000;
/** The input tree: INPUT_TOP x INPUT_SUB directories of INPUT_FILES_PER_DIR files each. */
const INPUT_TOP = 10;
const INPUT_SUB = 10;
const INPUT_FILES_PER_DIR = 100;
/** Input files are 0 to this many bytes, spread evenly by a fixed formula. */
const INPUT_MAX_FILE_BYTES = 8 * 1024;
/** The harvest source: HARVEST_DIRS directories of HARVEST_FILES_PER_DIR files, 2000 entries in all. */
const HARVEST_DIRS = 10;
/** The monorepo-like tree: MONO_PACKAGES x MONO_AREAS x MONO_MODULES modules of MONO_FILES_PER_MODULE files (100,000). */
const MONO_PACKAGES = 20;
const MONO_AREAS = 5;
const MONO_MODULES = 10;
const MONO_FILES_PER_MODULE = 100;
const HARVEST_FILES_PER_DIR = 199;
/** Harvest files are this size give or take HARVEST_FILE_SPREAD_BYTES, just under 64 MiB in all. */
const HARVEST_FILE_BYTES = 33_600;
const HARVEST_FILE_SPREAD_BYTES = 2048;
/** Deterministic content: file bytes are slices of one pseudo-random buffer of this size. */
const PATTERN_BYTES = 1024 * 1024;
const OWNER = "agentcage-bench";
const AGENT_USER = "10002:10002";
/** Every copy is kept until the end; the bench refuses to start when they would need more of the free space than this. */
const MAX_FREE_SPACE_FRACTION = 0.5;

type Tally = { readonly files: number; readonly directories: number; readonly bytes: number };




/** xorshift32 from a fixed seed: the same bytes on every machine and every run. */
function pattern(): Buffer {
  const buffer = Buffer.allocUnsafe(PATTERN_BYTES);
  let x = 0x9e3779b9;
  for (let i = 0; i < PATTERN_BYTES; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer.writeUInt32LE(x >>> 0, i);
  }
  return buffer;
}

function slice(bytes: Buffer, index: number, size: number): Buffer {
  const offset = (index * 4099) % (PATTERN_BYTES - size);
  return bytes.subarray(offset, offset + size);
}

/** 10,000 files of 0 to 8 KiB in 10 x 10 directories: a source tree of a middling project. */
function makeInputTree(root: string, bytes: Buffer): Tally {
  let files = 0;
  let total = 0;
  mkdirSync(root);
  for (let top = 0; top < INPUT_TOP; top++) {
    const topDir = path.join(root, `pkg-${String(top).padStart(2, "0")}`);
    mkdirSync(topDir);
    for (let sub = 0; sub < INPUT_SUB; sub++) {
      const subDir = path.join(topDir, `mod-${String(sub).padStart(2, "0")}`);
      mkdirSync(subDir);
      for (let f = 0; f < INPUT_FILES_PER_DIR; f++) {
        const size = (files * 2_654_435_761) % (INPUT_MAX_FILE_BYTES + 1);
        writeFileSync(path.join(subDir, `file-${String(f).padStart(3, "0")}.ts`), slice(bytes, files, size), { mode: 0o644 });
        files += 1;
        total += size;
      }
    }
  }
  return { files, directories: INPUT_TOP * (1 + INPUT_SUB), bytes: total };
}

/**
 * 100,000 files shaped like a monorepo: 20 packages x 5 areas x 10 modules, each module 1 to 4
 * directories deep, 100 files in its deepest; most files 0 to 4 KiB, one in 200 of 256 KiB to 1 MiB.
 */
function makeMonorepoTree(root: string, bytes: Buffer): Tally {
  let files = 0;
  let directories = 0;
  let total = 0;
  mkdirSync(root);
  for (let p = 0; p < MONO_PACKAGES; p++) {
    for (let a = 0; a < MONO_AREAS; a++) {
      for (let m = 0; m < MONO_MODULES; m++) {
        let dir = path.join(root, `packages/pkg-${p}`, ["src", "test", "lib", "docs", "scripts"][a] as string, `module-${m}`);
        for (let level = 0; level < m % 4; level++) dir = path.join(dir, `nested-${level}`);
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < MONO_FILES_PER_MODULE; f++) {
          const large = files % 200 === 199;
          const size = large ? 256 * 1024 + ((files * 7919) % (768 * 1024)) : (files * 2_654_435_761) % (4 * 1024 + 1);
          writeFileSync(path.join(dir, `file-${f}.ts`), slice(bytes, files, size), { mode: 0o644 });
          files += 1;
          total += size;
        }
      }
    }
  }
  directories = tallyTree(root).directories;
  return { files, directories, bytes: total };
}

/** 1990 files of about 32 KiB in 10 directories: 2000 entries, just under 64 MiB. */
function makeHarvestTree(root: string, bytes: Buffer): Tally {
  let files = 0;
  let total = 0;
  mkdirSync(root);
  for (let d = 0; d < HARVEST_DIRS; d++) {
    const dir = path.join(root, `part-${d}`);
    mkdirSync(dir);
    for (let f = 0; f < HARVEST_FILES_PER_DIR; f++) {
      const size = HARVEST_FILE_BYTES + ((files * 7919) % (2 * HARVEST_FILE_SPREAD_BYTES + 1)) - HARVEST_FILE_SPREAD_BYTES;
      writeFileSync(path.join(dir, `chunk-${String(f).padStart(3, "0")}.bin`), slice(bytes, files, size), { mode: 0o644 });
      files += 1;
      total += size;
    }
  }
  const tally = { files, directories: HARVEST_DIRS, bytes: total };
  if (tally.files + tally.directories > MAX_HARVEST_ENTRIES || tally.bytes > MAX_HARVEST_TOTAL_BYTES || HARVEST_FILE_BYTES + HARVEST_FILE_SPREAD_BYTES > MAX_HARVEST_FILE_BYTES) {
    throw new BenchFailure(`the harvest tree (${JSON.stringify(tally)}) breaks a harvest limit; shrink HARVEST_FILE_BYTES or HARVEST_FILES_PER_DIR`);
  }
  return tally;
}

/** Files, directories and file bytes below `root` (not counting it), links not followed. */
function tallyTree(root: string): Tally {
  let files = 0;
  let directories = 0;
  let bytes = 0;
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        directories += 1;
        visit(full);
      } else {
        files += 1;
        bytes += lstatSync(full).size;
      }
    }
  };
  visit(root);
  return { files, directories, bytes };
}

/** Bytes `root` and everything below it take on disk (allocated blocks), links not followed. */
function diskBytes(root: string): number {
  let total = lstatSync(root).blocks * 512;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    total += entry.isDirectory() ? diskBytes(full) : lstatSync(full).blocks * 512;
  }
  return total;
}

function sameTally(what: string, got: Tally, want: Tally): void {
  if (got.files !== want.files || got.directories !== want.directories || got.bytes !== want.bytes) {
    throw new BenchFailure(`${what} holds ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
  }
}

/** `cp -a source destination`; resolves once it has exited 0. */
function cpArchive(source: string, destination: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("cp", ["-a", source, destination], { stdio: ["ignore", "ignore", "pipe"] });
    const stderr: Buffer[] = [];
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new BenchFailure(`cp -a ${source} ${destination} exited ${code ?? signal}: ${Buffer.concat(stderr).toString("utf8").trim().slice(0, 500)}`));
    });
  });
}

/** Writes back what the copy just timed left dirty, so the next timed copy does not pay for its writeback. */
function sync(): void {
  spawnSync("sync", { stdio: "ignore" });
}

function firstLine(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  return result.status === 0 ? (result.stdout.split("\n")[0] ?? "").trim() : "unknown";
}

async function time(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

function rssMiB(): string {
  return (process.resourceUsage().maxRSS / 1024).toFixed(1);
}

function report(title: string, ours: string, oursMs: readonly number[], cpMs: readonly number[], tally: Tally): void {
  const o = summarize(oursMs);
  const c = summarize(cpMs);
  const row = (name: string, s: Summary): string =>
    `${name.padEnd(22)}${[s.median.toFixed(1), s.min.toFixed(1), (tally.files / (s.median / 1000)).toFixed(0), (tally.bytes / 1e6 / (s.median / 1000)).toFixed(1)]
      .map((v) => v.padStart(10))
      .join("")}`;
  console.log("");
  console.log(`${title}: ${tally.files} files, ${tally.directories} directories, ${(tally.bytes / 1e6).toFixed(1)} MB`);
  console.log(`${"ms".padEnd(22)}${["median", "min", "files/s", "MB/s"].map((h) => h.padStart(10)).join("")}`);
  console.log(row(ours, o));
  console.log(row("cp -a", c));
  console.log(`median(ours) / median(cp) = ${(o.median / c.median).toFixed(2)}, min(ours) / min(cp) = ${(o.min / c.min).toFixed(2)}`);
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2), process.env, DEFAULT_RUNS, MAX_RUNS);
  const scratch = mkdtempSync(path.join(os.tmpdir(), "agentcage-bench-staging-"));
  let failure: string | undefined;
  try {
    console.log(`staging and harvest vs cp -a: ${runs} interleaved runs each, after one warm-up each, under ${scratch}`);
    console.log(
      `node ${process.version}, ${firstLine("cp", ["--version"])}, file system ${firstLine("stat", ["-f", "-c", "%T", scratch])}, ` +
        `${os.cpus().length} CPUs, ${os.type()} ${os.release()}, uid ${process.getuid?.() ?? "unknown"}, UV_THREADPOOL_SIZE ${process.env["UV_THREADPOOL_SIZE"] ?? "unset (4)"}`,
    );

    const bytes = pattern();
    const input = path.join(scratch, "input");
    const source = path.join(scratch, "out");
    const inputTally = makeInputTree(input, bytes);
    const harvestTally = makeHarvestTree(source, bytes);
    const monorepo = path.join(scratch, "monorepo");
    const monorepoTally = makeMonorepoTree(monorepo, bytes);
    const runtimeDir = path.join(scratch, "runs");
    const copies = path.join(scratch, "copies");
    mkdirSync(runtimeDir, { mode: 0o700 });
    mkdirSync(copies);
    sync();
    const needed = 2 * (runs + 1) * (diskBytes(input) + diskBytes(source) + diskBytes(monorepo));
    const free = statfsSync(scratch);
    const available = free.bavail * free.bsize;
    if (needed > MAX_FREE_SPACE_FRACTION * available) {
      throw new BenchFailure(
        `keeping every copy of ${runs} runs needs about ${(needed / 1e9).toFixed(1)} GB, more than half of the ${(available / 1e9).toFixed(1)} GB free under ${scratch}; lower --runs or set TMPDIR to a larger file system`,
      );
    }
    console.log(`peak RSS after making the trees: ${rssMiB()} MiB; the copies will take about ${(needed / 1e9).toFixed(1)} GB until the end`);

    let n = 0;
    const fresh = (): string => path.join(copies, `c${n++}`);

    // Staging: prepareRunDirectory copies the tree into <runId>/work/ (0444 files, an empty out/).
    const stageOursOf = (tree: string, tally: Tally) => async (check: boolean): Promise<number> => {
      const runId = randomBytes(8).toString("hex");
      const ms = await time(async () => {
        await prepareRunDirectory({ runtimeDir, runId, owner: OWNER, inputs: { directory: tree }, promptText: "ping\n", writableWork: false, agentUser: AGENT_USER });
      });
      const root = path.join(runtimeDir, runId);
      // work/ holds the inputs plus the agent's empty out/.
      if (check) sameTally("the staged work/", tallyTree(path.join(root, "work")), { ...tally, directories: tally.directories + 1 });
      sync();
      return ms;
    };
    const stageCpOf = (tree: string, tally: Tally) => async (check: boolean): Promise<number> => {
      const destination = fresh();
      const ms = await time(() => cpArchive(tree, destination));
      if (check) sameTally("cp -a's copy of the input tree", tallyTree(destination), tally);
      sync();
      return ms;
    };
    const stageOurs = stageOursOf(input, inputTally);
    const stageCp = stageCpOf(input, inputTally);
    const harvestOurs = async (check: boolean): Promise<number> => {
      const destination = fresh();
      const started = performance.now();
      const result = await harvest(source, destination);
      const ms = performance.now() - started;
      if (!result.ok) throw new BenchFailure(`harvest refused: ${result.refusal.reason} at ${result.refusal.entry}: ${result.refusal.message}`);
      sameTally("harvest's result", result, harvestTally);
      if (check) sameTally("the harvested tree", tallyTree(destination), harvestTally);
      sync();
      return ms;
    };
    const harvestCp = async (check: boolean): Promise<number> => {
      const destination = fresh();
      const ms = await time(() => cpArchive(source, destination));
      if (check) sameTally("cp -a's copy of the harvest tree", tallyTree(destination), harvestTally);
      sync();
      return ms;
    };

    const interleave = async (ours: (check: boolean) => Promise<number>, cp: (check: boolean) => Promise<number>): Promise<[number[], number[]]> => {
      // The warm-ups are not counted; they are the ones whose trees are checked entry by entry.
      await ours(true);
      await cp(true);
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < runs; i++) {
        a.push(await ours(false));
        b.push(await cp(false));
      }
      return [a, b];
    };

    const [stageOursMs, stageCpMs] = await interleave(stageOurs, stageCp);
    report("staging", "prepareRunDirectory", stageOursMs, stageCpMs, inputTally);
    const [monoOursMs, monoCpMs] = await interleave(stageOursOf(monorepo, monorepoTally), stageCpOf(monorepo, monorepoTally));
    report("staging a monorepo-like tree", "prepareRunDirectory", monoOursMs, monoCpMs, monorepoTally);
    const [harvestOursMs, harvestCpMs] = await interleave(harvestOurs, harvestCp);
    report("harvest", "harvest()", harvestOursMs, harvestCpMs, harvestTally);
    console.log("");
    console.log(`peak RSS of this process at the end: ${rssMiB()} MiB`);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch((error: unknown) => {
      failure ??= `could not remove ${scratch}: ${error instanceof Error ? error.message : String(error)}`;
    });
    // Written back, the deleted inodes stop slowing creates sooner (see the top of this file).
    sync();
  }
  if (failure !== undefined) console.error(`bench failed: ${failure}`);
  return failure === undefined ? 0 : 1;
}

runBench(main);
