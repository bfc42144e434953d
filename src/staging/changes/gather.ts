// The file work of a change set, done in a worker thread with synchronous calls: each added or
// changed file copied into the change set (its directories made as needed), and the bytes both
// sides of its diff need read, in batches whose bytes are bounded. A change set of 1,000 edited
// files is then a few dozen trips to the worker, not sixteen trips through libuv's thread pool per file.

import { createWorkerPool } from "../workers/index.js";

/** One path of the change set: copied or not, and which of its contents come back for its diff. */
export type GatherTask = {
  /** Relative to work/, with forward slashes. */
  readonly rel: string;
  /**
   * Copy work/<rel> to <files>/<rel>, making its directories, from the file opened without
   * following a link, only if it is still the regular file the walk saw (this inode, this size).
   */
  readonly copy?: { readonly ino: bigint; readonly size: bigint };
  /** Read what the agent left at <rel> (from the file copied, no more than its size), for its diff. */
  readonly readNow: boolean;
  /** Read the staged original at <originals>/<rel>, if it is still a regular file of at most maxDiffBytes. */
  readonly readOriginal: boolean;
};

/** The contents asked for; `replaced` when work/<rel> was no longer the file the walk saw, and nothing was copied. */
export type Gathered = { readonly now?: Uint8Array; readonly original?: Uint8Array; readonly replaced?: true };

type GatherRequest = {
  readonly work: string;
  readonly files: string;
  readonly originals: string | undefined;
  readonly maxDiffBytes: number;
  readonly tasks: readonly GatherTask[];
};

/** The gather worker's program (see workers/): only node's own modules, no closure over this module. */
function gatherProgram(): (request: GatherRequest) => Gathered[] {
  // require, not import: the program runs in a worker from its source text, with nothing imported.
  const fs = require("node:fs") as typeof import("node:fs");
  const { dirname, join } = require("node:path") as typeof import("node:path");
  const made = new Set<string>();
  const makeDirectory = (directory: string): void => {
    if (made.has(directory)) return;
    fs.mkdirSync(directory, { recursive: true, mode: 0o755 });
    made.add(directory);
  };
  const readOriginal = (path: string, maxBytes: number): Uint8Array | undefined => {
    try {
      const stats = fs.lstatSync(path);
      return stats.isFile() && stats.size <= maxBytes ? fs.readFileSync(path) : undefined;
    } catch {
      // The caller's tree changed since it was staged: no original to diff against.
      return undefined;
    }
  };
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, COPYFILE_EXCL } = fs.constants;
  /** Copies the file the walk saw to `copy`, and reads it back when asked: its bytes, or undefined, or "replaced". */
  const copyChecked = (source: string, copy: string, expected: { ino: bigint; size: bigint }, read: boolean): Uint8Array | undefined | "replaced" => {
    let fd: number;
    try {
      fd = fs.openSync(source, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      if (["ELOOP", "ENOENT", "ENOTDIR", "ENXIO"].includes((error as NodeJS.ErrnoException).code ?? "")) return "replaced";
      throw error;
    }
    try {
      const stats = fs.fstatSync(fd, { bigint: true });
      if (!stats.isFile() || stats.ino !== expected.ino || stats.size !== expected.size) return "replaced";
      makeDirectory(dirname(copy));
      fs.copyFileSync(`/proc/self/fd/${fd}`, copy, COPYFILE_EXCL);
      if (!read) return undefined;
      // No more than the size the walk saw, whatever the file holds by now.
      const bytes = Buffer.allocUnsafe(Number(expected.size));
      return bytes.subarray(0, fs.readSync(fd, bytes, 0, bytes.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  };
  return ({ work, files, originals, maxDiffBytes, tasks }) => {
    made.clear();
    return tasks.map((task) => {
      const copied = task.copy === undefined ? undefined : copyChecked(join(work, task.rel), join(files, task.rel), task.copy, task.readNow);
      if (copied === "replaced") return { replaced: true };
      const original = task.readOriginal && originals !== undefined ? readOriginal(join(originals, task.rel), maxDiffBytes) : undefined;
      return { ...(copied === undefined ? {} : { now: copied }), ...(original === undefined ? {} : { original }) };
    });
  };
}

/** Two: a change set is gathered once per Run, at its end, and two Runs' need not queue. */
const pool = createWorkerPool("agentcage-changes", 2, gatherProgram);

/** At most this many tasks go to the worker at once... */
const BATCH_TASKS = 128;
/** ...and at most about this many bytes of contents come back (a task's estimate counts whole). */
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Runs `tasks` in order, in batches of at most BATCH_TASKS and about BATCH_BYTES of contents
 * (`estimate` says how many bytes a task reads back), and yields each task's contents in order.
 */
export async function* gather(
  where: { readonly work: string; readonly files: string; readonly originals: string | undefined; readonly maxDiffBytes: number },
  tasks: readonly GatherTask[],
  estimate: (task: GatherTask) => number,
): AsyncGenerator<Gathered> {
  for (let start = 0; start < tasks.length; ) {
    let end = start;
    let bytes = 0;
    while (end < tasks.length && end - start < BATCH_TASKS && (end === start || bytes < BATCH_BYTES)) {
      bytes += estimate(tasks[end] as GatherTask);
      end += 1;
    }
    yield* await pool.run({ ...where, tasks: tasks.slice(start, end) });
    start = end;
  }
}
