// Copies of regular files done in worker threads, synchronously: each file opened without following
// a link and without blocking, checked with fstat (a regular file of one name), copied from that open
// file (copy-on-write where the file system has it), its mode set, closed: five system calls' worth of work with no trip
// through libuv's thread pool between them, which is where the asynchronous copy spent its time
// (bench/README.md). Workers share this process's descriptors, so a source named through a pinned
// directory's /proc/self/fd/N is that directory. Bytes are counted against one shared budget
// before each copy, so no file past MAX_INPUT_BYTES is ever copied.

import { availableParallelism } from "node:os";
import { createWorkerPool } from "./workers/index.js";

export type CopyTask = {
  /** Read through a pinned directory's descriptor: `/proc/self/fd/<dir>/<name>`. */
  readonly src: string;
  readonly dst: string;
};

/** What became of one task, in the order given. */
export type CopyResult =
  | { readonly ok: true; readonly bytes: number }
  | { readonly ok: false; readonly why: "link" | "not_file" | "over_budget" | "skipped"; readonly bytes?: number }
  /** A regular file with more than one name: its bytes may be a file's outside the tree, so it is never copied. */
  | { readonly ok: false; readonly why: "hard_link"; readonly links: number }
  | { readonly ok: false; readonly why: "error"; readonly code?: string | undefined; readonly message: string };

export type ByteBudget = {
  /** Shared with the workers: bytes counted so far (index 0). */
  readonly counted: BigInt64Array;
  readonly max: bigint;
};

export function newByteBudget(max: number): ByteBudget {
  return { counted: new BigInt64Array(new SharedArrayBuffer(8)), max: BigInt(max) };
}

/** Adds bytes counted here (a named input file) to the shared budget; false when that passes its max. */
export function countOnBudget(budget: ByteBudget, bytes: number): boolean {
  return Atomics.add(budget.counted, 0, BigInt(bytes)) + BigInt(bytes) <= budget.max;
}

type CopyRequest = { readonly tasks: readonly CopyTask[]; readonly mode: number; readonly counted: BigInt64Array; readonly max: bigint };

/** The copy worker's program (see workers/): only node's own modules, no closure over this module. */
function copyProgram(): (request: CopyRequest) => CopyResult[] {
  // require, not import: the program runs in a worker from its source text, with nothing imported.
  const fs = require("node:fs") as typeof import("node:fs");
  const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  // Files up to this size are copied through one buffer of this worker's; larger ones by the kernel.
  const SMALL_FILE_BYTES = 64 * 1024;
  const buffer = Buffer.allocUnsafe(SMALL_FILE_BYTES);
  return (message) => {
    const results: CopyResult[] = [];
    let stopped = false;
    for (const task of message.tasks) {
      if (stopped) {
        results.push({ ok: false, why: "skipped" });
        continue;
      }
      let fd: number;
      try {
        fd = fs.openSync(task.src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        results.push(code === "ELOOP" ? { ok: false, why: "link" } : { ok: false, why: "error", code, message: (error as Error).message });
        stopped = true;
        continue;
      }
      try {
        const stats = fs.fstatSync(fd);
        if (!stats.isFile()) {
          results.push({ ok: false, why: "not_file" });
          stopped = true;
          continue;
        }
        // Judged on the open file, so a name swapped for a hard link after the walk saw it is caught too.
        if (stats.nlink > 1) {
          results.push({ ok: false, why: "hard_link", links: stats.nlink });
          stopped = true;
          continue;
        }
        const size = BigInt(stats.size);
        if (Atomics.add(message.counted, 0, size) + size > message.max) {
          results.push({ ok: false, why: "over_budget", bytes: stats.size });
          stopped = true;
          continue;
        }
        if (stats.size > SMALL_FILE_BYTES) {
          // Large: the kernel copies (copy-on-write where the file system can), from this open file.
          fs.copyFileSync(`/proc/self/fd/${fd}`, task.dst, fs.constants.COPYFILE_FICLONE);
          fs.chmodSync(task.dst, message.mode);
        } else {
          // Small (most of a checkout): one read and one write, into a file made new here (never
          // through a link, never over another), its mode set on its own descriptor.
          const out = fs.openSync(task.dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, message.mode);
          try {
            const length = fs.readSync(fd, buffer, 0, stats.size, 0);
            let written = 0;
            while (written < length) written += fs.writeSync(out, buffer, written, length - written);
            fs.fchmodSync(out, message.mode);
          } finally {
            fs.closeSync(out);
          }
        }
        results.push({ ok: true, bytes: stats.size });
      } catch (error) {
        results.push({ ok: false, why: "error", code: (error as NodeJS.ErrnoException).code, message: (error as Error).message });
        stopped = true;
      } finally {
        fs.closeSync(fd);
      }
    }
    return results;
  };
}

/** Workers: one per core, at least 2 and at most 4 (more only queue on this machine's disks). */
const POOL_SIZE = Math.min(4, Math.max(2, availableParallelism()));
const pool = createWorkerPool("agentcage-copy", POOL_SIZE, copyProgram);

/** Copies one batch of files with `mode`, counting bytes on `budget`; resolves with one result per task. */
export function copyBatch(tasks: readonly CopyTask[], mode: number, budget: ByteBudget): Promise<CopyResult[]> {
  return pool.run({ tasks, mode, counted: budget.counted, max: budget.max });
}
