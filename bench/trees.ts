// The trees the staging benches copy, made fresh with the same bytes on every machine, and what
// they share: cp -a as the yardstick, a tally to check a copy by, and the report of two ways side by side.

import { spawn, spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, statfsSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BenchFailure, summarize } from "./measure.js";

/** The monorepo-like tree: MONO_PACKAGES x MONO_AREAS x MONO_MODULES modules of MONO_FILES_PER_MODULE files (100,000). */
const MONO_PACKAGES = 20;
const MONO_AREAS = 5;
const MONO_MODULES = 10;
const MONO_FILES_PER_MODULE = 100;
/** Deterministic content: file bytes are slices of one buffer of this size. */
const PATTERN_BYTES = 1024 * 1024;
/** The most a copy of ours may take, as a multiple of cp -a's of the same tree. */
const COPY_TARGET_RATIO = 1.2;
/** Every copy is kept until the end; a bench refuses to start when they would need more of the free space than this. */
const MAX_FREE_SPACE_FRACTION = 0.5;

/** A way of copying and its times in ms. */
export type Way = readonly [name: string, ms: readonly number[]];

export type Tally = { readonly files: number; readonly directories: number; readonly bytes: number };

/** xorshift32 from a fixed seed: the same bytes on every machine and every run. */
export function pattern(): Buffer {
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

export function slice(bytes: Buffer, index: number, size: number): Buffer {
  const offset = (index * 4099) % (PATTERN_BYTES - size);
  return bytes.subarray(offset, offset + size);
}

/** Lines of source-like ASCII text, PATTERN_BYTES of them: files a diff can read. */
export function textPattern(): Buffer {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < PATTERN_BYTES; i++) {
    const line = `export const value${i} = "${((i * 2_654_435_761) % 1e9).toString(36)}"; // line ${i}\n`;
    lines.push(line);
    length += line.length;
  }
  return Buffer.from(lines.join("").slice(0, PATTERN_BYTES), "latin1");
}

/**
 * 100,000 files shaped like a monorepo: 20 packages x 5 areas x 10 modules, each module 1 to 4
 * directories deep, 100 files in its deepest; most files 0 to 4 KiB, one in 200 of 256 KiB to 1 MiB.
 * `paths` are the files, relative to `root`, in the order made.
 */
export function makeMonorepoTree(root: string, bytes: Buffer): Tally & { readonly paths: readonly string[] } {
  const paths: string[] = [];
  let total = 0;
  mkdirSync(root);
  for (let p = 0; p < MONO_PACKAGES; p++) {
    for (let a = 0; a < MONO_AREAS; a++) {
      for (let m = 0; m < MONO_MODULES; m++) {
        let dir = path.join(root, `packages/pkg-${p}`, ["src", "test", "lib", "docs", "scripts"][a] as string, `module-${m}`);
        for (let level = 0; level < m % 4; level++) dir = path.join(dir, `nested-${level}`);
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < MONO_FILES_PER_MODULE; f++) {
          const index = paths.length;
          const size = isLargeMonorepoFile(index) ? 256 * 1024 + ((index * 7919) % (768 * 1024)) : (index * 2_654_435_761) % (4 * 1024 + 1);
          const file = path.join(dir, `file-${f}.ts`);
          writeFileSync(file, slice(bytes, index, size), { mode: 0o644 });
          paths.push(path.relative(root, file));
          total += size;
        }
      }
    }
  }
  return { files: paths.length, directories: tallyTree(root).directories, bytes: total, paths };
}

/** Whether the monorepo tree's file number `index` (in the order made) is one of its large ones. */
export const isLargeMonorepoFile = (index: number): boolean => index % 200 === 199;

/** Files, directories and file bytes below `root` (not counting it), links not followed. */
export function tallyTree(root: string): Tally {
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
export function diskBytes(root: string): number {
  let total = lstatSync(root).blocks * 512;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    total += entry.isDirectory() ? diskBytes(full) : lstatSync(full).blocks * 512;
  }
  return total;
}

export function sameTally(what: string, got: Tally, want: Tally): void {
  if (got.files !== want.files || got.directories !== want.directories || got.bytes !== want.bytes) {
    throw new BenchFailure(`${what} holds ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
  }
}

/** `cp -a source destination`; resolves once it has exited 0. */
export function cpArchive(source: string, destination: string): Promise<void> {
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

/**
 * A timed `cp -a tree` into a fresh destination from `fresh`, its copy checked against `tally` when
 * `check` (the warm-up), then written back; resolves with its ms.
 */
export const timedCpArchive =
  (tree: string, tally: Tally, fresh: () => string) =>
  async (check: boolean): Promise<number> => {
    const destination = fresh();
    const ms = await time(() => cpArchive(tree, destination));
    if (check) sameTally(`cp -a's copy of ${path.basename(tree)}`, tallyTree(destination), tally);
    sync();
    return ms;
  };

/**
 * Runs `body` in a fresh scratch directory under os.tmpdir() (TMPDIR chooses the file system), then
 * removes it and writes the removal back (deleted inodes slow later creates until then); resolves
 * with the exit code: 1, saying why, when anything went wrong.
 */
export async function inScratch(prefix: string, body: (scratch: string) => Promise<void>): Promise<number> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), prefix));
  let failure: string | undefined;
  try {
    await body(scratch);
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch((error: unknown) => {
      failure ??= `could not remove ${scratch}: ${error instanceof Error ? error.message : String(error)}`;
    });
    sync();
  }
  if (failure !== undefined) console.error(`bench failed: ${failure}`);
  return failure === undefined ? 0 : 1;
}

/** Writes back what the copy just timed left dirty, so the next timed copy does not pay for its writeback. */
export function sync(): void {
  spawnSync("sync", { stdio: "ignore" });
}

/** Throws when keeping `needed` bytes of copies would take more than half the free space under `scratch`. */
export function checkFreeSpace(scratch: string, needed: number, runs: number): void {
  const free = statfsSync(scratch);
  const available = free.bavail * free.bsize;
  if (needed > MAX_FREE_SPACE_FRACTION * available) {
    throw new BenchFailure(
      `keeping every copy of ${runs} runs needs about ${(needed / 1e9).toFixed(1)} GB, more than half of the ${(available / 1e9).toFixed(1)} GB free under ${scratch}; lower --runs or set TMPDIR to a larger file system`,
    );
  }
}

/** One line on what the figures were taken on. */
export function machineLine(scratch: string): string {
  return (
    `node ${process.version}, ${firstLine("cp", ["--version"])}, file system ${firstLine("stat", ["-f", "-c", "%T", scratch])}, ` +
    `${os.cpus().length} CPUs, ${os.type()} ${os.release()}, uid ${process.getuid?.() ?? "unknown"}, UV_THREADPOOL_SIZE ${process.env["UV_THREADPOOL_SIZE"] ?? "unset (4)"}`
  );
}

function firstLine(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  return result.status === 0 ? (result.stdout.split("\n")[0] ?? "").trim() : "unknown";
}

export async function time(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

export function rssMiB(): string {
  return (process.resourceUsage().maxRSS / 1024).toFixed(1);
}

/**
 * Prints each way's median and min over the tree, `ours` first and cp -a second, then ours over
 * cp -a against the target (at most COPY_TARGET_RATIO); `others` are printed for scale only.
 */
export function report(title: string, tally: Tally, ours: Way, cpMs: readonly number[], others: readonly Way[] = []): void {
  const row = ([name, samples]: Way): string => {
    const s = summarize(samples);
    return `${name.padEnd(26)}${[
      s.median.toFixed(1),
      s.min.toFixed(1),
      (tally.files / (s.median / 1000)).toFixed(0),
      (tally.bytes / 1e6 / (s.median / 1000)).toFixed(1),
    ]
      .map((v) => v.padStart(10))
      .join("")}`;
  };
  const o = summarize(ours[1]);
  const c = summarize(cpMs);
  const ratio = o.median / c.median;
  console.log("");
  console.log(`${title}: ${tally.files} files, ${tally.directories} directories, ${(tally.bytes / 1e6).toFixed(1)} MB`);
  console.log(`${"ms".padEnd(26)}${["median", "min", "files/s", "MB/s"].map((h) => h.padStart(10)).join("")}`);
  for (const way of [ours, ["cp -a", cpMs] as const, ...others]) console.log(row(way));
  console.log(
    `median(ours) / median(cp) = ${ratio.toFixed(2)} (target <= ${COPY_TARGET_RATIO}: ${ratio <= COPY_TARGET_RATIO ? "MET" : "MISS"}), min(ours) / min(cp) = ${(o.min / c.min).toFixed(2)}`,
  );
}
