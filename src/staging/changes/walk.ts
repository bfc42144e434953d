// The walk of a work/ tree that a manifest and a change set are both made of: every entry lstat'ed
// (a link is an entry, never followed), in a worker thread with synchronous calls, back to back, so
// 100,000 entries cost what `find` costs and not one trip through libuv's thread pool each. Run it
// only while nothing writes to the tree (before the container starts, after it is gone).

import { createWorkerPool } from "../workers/index.js";

export const KIND = { file: 0, directory: 1, symlink: 2, special: 3 } as const;

/** Every entry below the root (not the root), in walk order: a directory before what it holds. */
export type TreeWalk = {
  /** Paths relative to the root, with forward slashes. */
  readonly paths: readonly string[];
  /** One of KIND per entry. */
  readonly kinds: Uint8Array;
  readonly ino: BigUint64Array;
  readonly size: BigUint64Array;
  readonly ctimeNs: BigUint64Array;
};

/** Where the walk stopped short: the entry past `maxEntries`, or the directory deeper than `maxDepth`. */
export type WalkStop = { readonly stopped: "too_many_entries" | "too_deep"; readonly entry: string };

export type WalkLimits = {
  /** The most entries walked; the next one stops the walk. */
  readonly maxEntries: number;
  /** The deepest directory read: the root is 0, its directories 1. */
  readonly maxDepth: number;
};

/** Entries the walk steps over, never listing what is below them (a change set's excluded inputs, the agent's out/). */
export type WalkSkip = {
  /** Regular expressions, as `new RegExp(source, flags)`, tested against each path relative to the root. */
  readonly skip: ReadonlyArray<{ readonly source: string; readonly flags: string }>;
};

type WalkRequest = WalkLimits & { readonly root: string; readonly skipping?: WalkSkip };
/** What crosses from the worker: columns, the paths joined by NUL (no name holds one), so one string is copied and not 100,000. */
type WalkReply = (Omit<TreeWalk, "paths"> & { readonly paths: string }) | WalkStop;

/** The walk worker's program (see workers/): only node's own modules, no closure over this module. */
function walkProgram(): (request: WalkRequest) => WalkReply {
  // require, not import: the program runs in a worker from its source text, with nothing imported.
  const fs = require("node:fs") as typeof import("node:fs");
  // KIND's numbers, written again: the program cannot close over this module.
  const [FILE, DIRECTORY, SYMLINK, SPECIAL] = [0, 1, 2, 3];
  class Stop {
    constructor(readonly reply: { stopped: "too_many_entries" | "too_deep"; entry: string }) {}
  }
  return ({ root, maxEntries, maxDepth, skipping }) => {
    const skip = (skipping?.skip ?? []).map(({ source, flags }) => new RegExp(source, flags));
    const skipped = (rel: string): boolean => skip.some((expression) => expression.test(rel));
    let capacity = 1024;
    let count = 0;
    let kinds = new Uint8Array(capacity);
    let ino = new BigUint64Array(capacity);
    let size = new BigUint64Array(capacity);
    let ctimeNs = new BigUint64Array(capacity);
    const paths: string[] = [];
    const grow = (): void => {
      capacity *= 2;
      const wider = <T extends Uint8Array | BigUint64Array>(old: T, make: (n: number) => T): T => {
        const next = make(capacity);
        next.set(old as never);
        return next;
      };
      kinds = wider(kinds, (n) => new Uint8Array(n));
      ino = wider(ino, (n) => new BigUint64Array(n));
      size = wider(size, (n) => new BigUint64Array(n));
      ctimeNs = wider(ctimeNs, (n) => new BigUint64Array(n));
    };
    const visit = (dir: string, relative: string, depth: number): void => {
      if (depth > maxDepth) throw new Stop({ stopped: "too_deep", entry: relative });
      // Names a few hundred at a time: a directory of a million names is never read whole.
      const handle = fs.opendirSync(dir, { bufferSize: 512 });
      try {
        for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
          const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
          if (skipped(rel)) continue;
          if (count >= maxEntries) throw new Stop({ stopped: "too_many_entries", entry: rel });
          const path = `${dir}/${entry.name}`;
          const stats = fs.lstatSync(path, { bigint: true });
          const kind = stats.isDirectory() ? DIRECTORY : stats.isSymbolicLink() ? SYMLINK : stats.isFile() ? FILE : SPECIAL;
          if (count === capacity) grow();
          kinds[count] = kind as number;
          ino[count] = stats.ino;
          size[count] = stats.size;
          ctimeNs[count] = stats.ctimeNs;
          paths.push(rel);
          count += 1;
          if (kind === DIRECTORY) visit(path, rel, depth + 1);
        }
      } finally {
        handle.closeSync();
      }
    };
    try {
      visit(root, "", 0);
    } catch (error) {
      if (error instanceof Stop) return error.reply;
      throw error;
    }
    return { paths: paths.join("\0"), kinds: kinds.slice(0, count), ino: ino.slice(0, count), size: size.slice(0, count), ctimeNs: ctimeNs.slice(0, count) };
  };
}

/** Two: walks are one per Run at its start and end, and two Runs' walks need not queue. */
const pool = createWorkerPool("agentcage-walk", 2, walkProgram);

/** Walks the tree below `root`; a broken limit stops the walk there and is answered instead. */
export async function walkTree(root: string, limits: WalkLimits, skipping?: WalkSkip): Promise<TreeWalk | WalkStop> {
  const reply = await pool.run({ root, ...limits, ...(skipping === undefined ? {} : { skipping }) });
  if ("stopped" in reply) return reply;
  return { ...reply, paths: reply.kinds.length === 0 ? [] : reply.paths.split("\0") };
}
