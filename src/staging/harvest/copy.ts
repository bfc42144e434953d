// The copy of the files a walk accepted: in batches, by worker threads making synchronous calls, so
// a file costs its system calls and not a trip through libuv's thread pool for each (bench/README.md).
// Invariant: a file is copied only if its descriptor, opened through its pinned directory without
// following a link, is the inode lstat saw, unchanged, a plain file within maxFileBytes; and fstat
// after the copy shows it still unchanged with exactly its size copied: no file is harvested with a
// size or content it never had. A copy's refusal lands in walk.failure.

import type { HarvestRefusal } from "../../plan/index.js";
import { createWorkerPool } from "../workers/index.js";
import {
  HARVEST_COPY_BATCH_BYTES,
  HARVEST_COPY_BATCH_FILES,
  HARVEST_COPY_BATCHES_IN_FLIGHT,
  HARVEST_COPY_CHUNK_BYTES,
  HARVEST_COPY_WORKERS,
} from "./limits.js";
import type { CallFailure, Observed } from "./listing.js";
import { changed, failureError, ioError, refusal } from "./refusals.js";
import { checkKind, isType, REPLACED_CODES, stateDifference, TYPE } from "./stat-checks.js";
import { checkFileSize, type Entry, type Walk } from "./tally.js";

/** One file of a pinned directory, as lstat saw it (`expected`): reached at `location` (through the directory's descriptor), copied to `target`. */

type CopyTask = { readonly location: Uint8Array; readonly target: Uint8Array; readonly expected: Observed };
type CopyRequest = {
  readonly tasks: readonly CopyTask[];
  readonly maxFileBytes: number;
  readonly chunkBytes: number;
  /** Set only while a race test holds the copies (holdCopies). */
  readonly gate?: SharedArrayBuffer;
};
/** Why one file was not copied: the step it stopped at and what was seen of it there. */
type Stopped =
  | { readonly stage: "open"; readonly failure: CallFailure }
  | { readonly stage: "opened"; readonly opened: Observed }
  | { readonly stage: "copy"; readonly failure: CallFailure }
  | { readonly stage: "copied"; readonly opened: Observed; readonly after: Observed; readonly copied: number };
/** Where a batch stopped: the task at `index`; the tasks before it were copied. */
type CopyStop = { readonly index: number } & Stopped;
type CopyReply = { readonly copied: number; readonly stop?: CopyStop };

/**
 * The gate a race test holds the copies at (holdCopies): Int32 words (held, the lock one worker at
 * a time takes, the step posted), then the step's inode. Written again as literals in copyProgram,
 * which cannot close over this module.
 */
const GATE_HELD = 0;
const GATE_LOCK = 1;
const GATE_STEP = 2;
const GATE_BYTES = 24;
const GATE_INODE_OFFSET = 16;
const STEP_NONE = 0;
/** Posted before an open; 2 before a read. */
const STEP_OPEN = 1;

/** The copy worker's program (see workers/): only node's own modules, no closure over this module. */
function copyProgram(): (request: CopyRequest) => CopyReply {
  // require, not import: the program runs in a worker from its source text, with nothing imported.
  const fs = require("node:fs") as typeof import("node:fs");
  const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, S_IFMT, S_IFREG } = fs.constants;
  /** O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the harvest in open(). */
  const OPEN_FILE = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
  /** Made new here, never through a link, never over another file. */
  const CREATE = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;
  const FILE_MODE = 0o644;
  /** How long a held step waits for the test that holds it before it goes on alone. */
  const GATE_WAIT_MS = 10_000;
  let chunk = Buffer.alloc(0);

  const observe = (s: import("node:fs").BigIntStats): Observed => ({
    dev: s.dev,
    ino: s.ino,
    mode: s.mode,
    nlink: s.nlink,
    size: s.size,
    mtimeNs: s.mtimeNs,
    ctimeNs: s.ctimeNs,
  });
  const failure = (error: unknown): CallFailure => {
    const e = error as NodeJS.ErrnoException;
    return {
      name: e instanceof Error ? e.name : "Error",
      ...(e.code === undefined ? {} : { code: e.code }),
      ...(e.syscall === undefined ? {} : { syscall: e.syscall }),
    };
  };
  const same = (a: Observed, b: Observed): boolean =>
    a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
  // A plain regular file its owner can read, of one name: what stat-checks.ts's checkKind lets
  // through for a file, written again here (the program cannot close over that module) only to
  // know where to stop; the refusal itself is decided from `opened` by the harvest's own checks.
  const plainFile = (s: Observed): boolean =>
    (Number(s.mode) & S_IFMT) === S_IFREG && (Number(s.mode) & 0o7000) === 0 && s.nlink <= 1n && (Number(s.mode) & 0o400) !== 0;
  const closeQuietly = (fd: number): void => {
    try {
      fs.closeSync(fd);
    } catch {
      // A descriptor only read from: nothing of the copy depends on its close.
    }
  };

  // A race test's hold (holdCopies): the step is posted and this worker waits until the test has
  // acted and let it go; one step at a time across workers (GATE_LOCK).
  const pass = (gate: SharedArrayBuffer, step: number, ino: bigint): void => {
    const words = new Int32Array(gate, 0, 4);
    const deadline = Date.now() + GATE_WAIT_MS;
    let mine = false;
    while (!mine && Atomics.load(words, 0) === 1 && Date.now() < deadline) {
      mine = Atomics.compareExchange(words, 1, 0, 1) === 0;
      if (!mine) Atomics.wait(words, 1, 1, 50);
    }
    if (!mine) return;
    try {
      new BigInt64Array(gate, 16, 1)[0] = ino;
      Atomics.store(words, 2, step);
      Atomics.notify(words, 2);
      while (Atomics.load(words, 0) === 1 && Atomics.load(words, 2) === step && Date.now() < deadline) Atomics.wait(words, 2, step, 50);
    } finally {
      Atomics.store(words, 2, 0);
      Atomics.store(words, 1, 0);
      Atomics.notify(words, 1);
    }
  };

  /** Reads at most `size` bytes of `input` into `output`; the bytes copied, fewer if the file ended early. */
  const copyBytes = (input: number, output: number, size: number, gate: SharedArrayBuffer | undefined, ino: bigint): number => {
    let copied = 0;
    while (copied < size) {
      if (gate !== undefined) pass(gate, 2, ino);
      const read = fs.readSync(input, chunk, 0, Math.min(chunk.length, size - copied), null);
      if (read === 0) break;
      let written = 0;
      while (written < read) written += fs.writeSync(output, chunk, written, read - written);
      copied += read;
    }
    return copied;
  };

  /**
   * A file larger than one chunk: the kernel copies it (copy_file_range, or a reflink where the file
   * system shares extents), from this open file into this new one, both named through their
   * descriptors. It copies the size it sees a moment after the check, so a file that grew in that
   * moment is copied whole and then refused by the fstat after. The bytes copied: the new file's size.
   */
  const copyByKernel = (input: number, output: number, gate: SharedArrayBuffer | undefined, ino: bigint): number => {
    if (gate !== undefined) pass(gate, 2, ino);
    fs.copyFileSync(`/proc/self/fd/${input}`, `/proc/self/fd/${output}`, fs.constants.COPYFILE_FICLONE);
    // The kernel's copy gave the new file the source's mode.
    fs.fchmodSync(output, FILE_MODE);
    return Number(fs.fstatSync(output).size);
  };

  /** One file: undefined once copied, else where and why it stopped (the harvest words the refusal). */
  const copyOne = (task: CopyTask, maxFileBytes: number, gate: SharedArrayBuffer | undefined): Stopped | undefined => {
    if (gate !== undefined) pass(gate, 1, task.expected.ino);
    let input: number;
    try {
      // A Buffer again: the path crossed to this worker as a plain Uint8Array.
      input = fs.openSync(Buffer.from(task.location.buffer, task.location.byteOffset, task.location.byteLength), OPEN_FILE);
    } catch (error) {
      return { stage: "open", failure: failure(error) };
    }
    try {
      const opened = observe(fs.fstatSync(input, { bigint: true }));
      if (!same(task.expected, opened) || !plainFile(opened) || opened.size > BigInt(maxFileBytes)) return { stage: "opened", opened };
      const output = fs.openSync(Buffer.from(task.target.buffer, task.target.byteOffset, task.target.byteLength), CREATE, FILE_MODE);
      let copied: number;
      try {
        // A default ACL on the parent, not only the umask, can decide a new file's mode.
        fs.fchmodSync(output, FILE_MODE);
        copied =
          opened.size > BigInt(chunk.length) ? copyByKernel(input, output, gate, opened.ino) : copyBytes(input, output, Number(opened.size), gate, opened.ino);
      } catch (error) {
        closeQuietly(output);
        throw error;
      }
      fs.closeSync(output);
      const after = observe(fs.fstatSync(input, { bigint: true }));
      if (!same(opened, after) || BigInt(copied) !== after.size) return { stage: "copied", opened, after, copied };
      return undefined;
    } catch (error) {
      return { stage: "copy", failure: failure(error) };
    } finally {
      closeQuietly(input);
    }
  };

  return (request) => {
    if (chunk.length !== request.chunkBytes) chunk = Buffer.allocUnsafe(request.chunkBytes);
    for (const [index, task] of request.tasks.entries()) {
      const stop = copyOne(task, request.maxFileBytes, request.gate);
      if (stop !== undefined) return { copied: index, stop: { index, ...stop } };
    }
    return { copied: request.tasks.length };
  };
}

const pool = createWorkerPool("agentcage-harvest-copy", HARVEST_COPY_WORKERS, copyProgram);
let gate: SharedArrayBuffer | undefined;

/**
 * Adds a file whose size is already counted in walk.bytes to the walk's next batch, and hands the
 * batch to a worker once it holds HARVEST_COPY_BATCH_FILES files or HARVEST_COPY_BATCH_BYTES;
 * waits while HARVEST_COPY_BATCHES_IN_FLIGHT batches are in flight.
 */
export async function queueCopy(walk: Walk, entry: Entry): Promise<void> {
  walk.batch.push(entry);
  walk.batchBytes += Number(entry.expected.size);
  if (walk.batch.length >= HARVEST_COPY_BATCH_FILES || walk.batchBytes >= HARVEST_COPY_BATCH_BYTES) await dispatch(walk);
}

/** Hands the walk's last, partial batch to a worker. */
export async function flushCopies(walk: Walk): Promise<void> {
  if (walk.batch.length > 0) await dispatch(walk);
}

/** Waits for every batch in flight. */
export async function settle(walk: Walk): Promise<void> {
  await Promise.all([...walk.copies]);
}

async function dispatch(walk: Walk): Promise<void> {
  while (walk.copies.size >= HARVEST_COPY_BATCHES_IN_FLIGHT) await Promise.race(walk.copies);
  const entries = walk.batch;
  walk.batch = [];
  walk.batchBytes = 0;
  const request: CopyRequest = {
    tasks: entries.map(({ location, target, expected }) => ({ location, target, expected })),
    maxFileBytes: walk.limits.maxFileBytes,
    chunkBytes: HARVEST_COPY_CHUNK_BYTES,
    ...(gate === undefined ? {} : { gate }),
  };
  const running: Promise<void> = pool
    .run(request)
    .then(
      (reply) => {
        walk.files += reply.copied;
        return reply.stop === undefined ? undefined : stopRefusal(walk, entries[reply.stop.index] as Entry, reply.stop);
      },
      (error: unknown) => ioError((entries[0] as Entry).relative, "copy", error),
    )
    .then((copyRefusal) => {
      walk.copies.delete(running);
      walk.failure ??= copyRefusal;
    });
  walk.copies.add(running);
}

/** The refusal of the file a batch stopped at, worded from what the worker saw, as the checks of this thread decide it. */
function stopRefusal(walk: Walk, entry: Entry, stop: CopyStop): HarvestRefusal {
  const { relative, expected } = entry;
  switch (stop.stage) {
    case "open":
      if (REPLACED_CODES.has(stop.failure.code ?? ""))
        return changed(relative, "it was removed or replaced by something that is not a regular file before it was opened");
      return ioError(relative, "open", failureError(stop.failure));
    case "opened": {
      const { opened } = stop;
      const difference = isType(opened, TYPE.file) ? stateDifference(expected, opened) : "it was replaced by something that is not a regular file";
      if (difference !== undefined) return changed(relative, `${difference} before it was opened`);
      return (
        checkKind(opened, relative) ??
        checkFileSize(walk, relative, opened.size) ??
        refusal("io_error", relative, "harvest's copy stopped at a file its checks let through; harvest again, and report this if it happens twice")
      );
    }
    case "copy":
      return ioError(relative, "copy", failureError(stop.failure));
    case "copied": {
      const { opened, after, copied } = stop;
      const change = stateDifference(opened, after) ?? `${copied} bytes were read of its ${after.size}`;
      return changed(relative, `${change} while it was copied`);
    }
  }
}

/** A step of a copy a race test can act at: just before the file lstat saw as `ino` is opened, or just before each read of the open file whose fstat is `ino`. */
export type CopyStep = { readonly step: "open" | "read"; readonly ino: bigint };

/**
 * For race tests only: until the returned function is called, each copy stops before each open and
 * each read and waits (at most 10 s) until `onStep` has run on this thread, so a test changes the
 * tree at exactly that step. The returned function lets go and throws what `onStep` threw first.
 * A harvest that nothing holds pays one check per file for it.
 */
export function holdCopies(onStep: (step: CopyStep) => void): () => void {
  const shared = new SharedArrayBuffer(GATE_BYTES);
  const words = new Int32Array(shared, 0, 4);
  const inode = new BigInt64Array(shared, GATE_INODE_OFFSET, 1);
  const waitAsync = (Atomics as unknown as { waitAsync: (a: Int32Array, i: number, v: number) => { async: boolean; value: Promise<string> | string } })
    .waitAsync;
  let thrown: unknown;
  let failed = false;
  Atomics.store(words, GATE_HELD, 1);
  gate = shared;
  const serve = async (): Promise<void> => {
    while (Atomics.load(words, GATE_HELD) === 1) {
      const waited = waitAsync(words, GATE_STEP, STEP_NONE);
      if (waited.async) await waited.value;
      const step = Atomics.load(words, GATE_STEP);
      if (step === STEP_NONE || Atomics.load(words, GATE_HELD) !== 1) continue;
      try {
        onStep({ step: step === STEP_OPEN ? "open" : "read", ino: inode[0] as bigint });
      } catch (error) {
        if (!failed) thrown = error;
        failed = true;
      }
      Atomics.store(words, GATE_STEP, STEP_NONE);
      Atomics.notify(words, GATE_STEP);
    }
  };
  void serve();
  return () => {
    gate = undefined;
    Atomics.store(words, GATE_HELD, 0);
    Atomics.notify(words, GATE_STEP);
    Atomics.notify(words, GATE_LOCK);
    if (failed) throw thrown;
  };
}
