// The Harvest's listing of a pinned source tree, made in a worker thread with synchronous calls:
// each entry lstat'ed, each directory opened without following a link (and kept open, so what lies
// below it is reached through its descriptor) and made at the destination. A tree of 2,000
// directories costs what `find` costs, not ten trips through libuv's thread pool per directory.
// The listing only observes; walk.ts decides every refusal from it, in walk order. Its records reach
// walk.ts in parts while it goes on, so the copies start with the first part; it waits while it is
// HARVEST_LISTING_AHEAD_RECORDS ahead of the records walk.ts has taken, stops at the next record
// once walk.ts met a refusal (stop), and at the first record it can see must be refused.
// Descriptors: a directory that holds files stays open until releaseDirectories (its files are
// copied through it); one that holds none is closed at the end of its names, so a tree of deep,
// file-less directories (a change set's mirror) holds one descriptor per directory with files.
// A worker that dies mid-listing leaks the descriptors it had opened: nothing else knows them.

import { createWorkerPool } from "../workers/index.js";
import { HARVEST_LISTING_AHEAD_RECORDS, HARVEST_LISTING_PART_RECORDS } from "./limits.js";

/** What lstat or fstat showed of one entry: the fields the Harvest's checks read. */
export type Observed = {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mode: bigint;
  readonly nlink: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
};

/** A system call that failed, by its code and call only: its message would quote the raw path. */
export type CallFailure = { readonly code?: string; readonly syscall?: string; readonly name: string };

/** One name met in a directory, in walk order (a directory before what it holds). */
export type ListedEntry = {
  readonly kind: "entry";
  /** The name, byte-exact. */
  readonly name: Uint8Array;
  /** The entry's directory: an index into the listing's records, or -1 for the source itself. */
  readonly parent: number;
  /** The source's direct children are 1. */
  readonly depth: number;
  readonly lstat?: Observed;
  readonly lstatFailure?: CallFailure;
  /** A directory no deeper than maxDepth, opened without following a link: its descriptor, kept open. */
  readonly fd?: number;
  /** fstat of that descriptor, just after it was opened. */
  readonly opened?: Observed;
  readonly openFailure?: CallFailure;
  readonly inspectFailure?: CallFailure;
  /** Making its directory at the destination failed. */
  readonly makeFailure?: CallFailure;
};

/** The end of one directory's names: fstat of its descriptor then, or why its names could not be read. */
export type ListedEnd = {
  readonly kind: "end";
  /** The directory: an index into the listing's records, or -1 for the source itself. */
  readonly directory: number;
  readonly after?: Observed;
  readonly readFailure?: CallFailure;
  /** It held no files, so its descriptor was closed here and it is not checked again after the copies. */
  readonly closed?: true;
};

export type ListedRecord = ListedEntry | ListedEnd;

/** How a listing ended. */
export type ListingEnd = {
  /** Whether every name was listed: false when the listing stopped at its last record, or was stopped. */
  readonly complete: boolean;
  /** Every directory descriptor the listing opened and did not close, to be closed by releaseDirectories. */
  readonly fds: readonly number[];
};

/**
 * A listing under way. It stops by itself at the first record the Harvest must refuse that the
 * worker can see without the Harvest's rules (an entry past maxEntries, a directory too deep, a
 * failed call, a kind that is not a plain file or directory, a directory that changed), and at its
 * next record once stopped; it is never more than `aheadRecords` past the records its parts handed
 * over, so a tree of a million names is never listed whole before a refusal walk.ts meets.
 */
export type Listing = {
  /**
   * Every record in walk order, in parts of at most HARVEST_LISTING_PART_RECORDS as the worker
   * lists them; a record's index is its place among all the listing's records. Ends when the
   * listing ended; throws if its worker failed.
   */
  readonly parts: AsyncIterable<readonly ListedRecord[]>;
  /** Asks the listing to stop before its next record: the walk met a refusal and needs no more. Whoever starts a listing stops it or reads it to its end: a listing that is ahead waits. */
  readonly stop: () => void;
  /** Settles once the last part was handed over. */
  readonly ended: Promise<ListingEnd>;
};

type ListRequest = {
  readonly op: "list";
  /** The pinned source: /proc/self/fd/<fd>, and the fd, for its fstat after its names are read. */
  readonly root: string;
  readonly rootFd: number;
  readonly rootOpened: Observed;
  /** The destination directory the source's directories are made in (it exists). */
  readonly target: string;
  readonly maxEntries: number;
  readonly maxDepth: number;
  /** Records in one part posted to the caller. */
  readonly partRecords: number;
  /** Records the listing may make past those the caller has taken; it waits there. */
  readonly aheadRecords: number;
  /** Two Int32 words: STOP_WORD, set to 1 by the caller to stop the listing before its next record, and TAKEN_WORD, the records it took. */
  readonly words: SharedArrayBuffer;
};
type ReleaseRequest = {
  readonly op: "release";
  /** Directories to fstat once more and compare with what they were, in walk order. */
  readonly check: ReadonlyArray<{ readonly fd: number; readonly expected: Observed }>;
  /** Descriptors to close then, whatever the checks found (the source's is not among them: its handle closes it). */
  readonly close: readonly number[];
};
type Request = ListRequest | ReleaseRequest;

/** The listing's shared words (see ListRequest); written again as literals in listingProgram, which cannot close over this module. */
const STOP_WORD = 0;
const TAKEN_WORD = 1;
/** How a listing ended, or for a release the index (into its `check`) of the first directory that changed, -1 if none did. */
type Reply = ListingEnd | number;

/** The listing worker's program (see workers/): only node's own modules, no closure over this module. */
function listingProgram(): (request: Request, post: (part: ListedRecord[]) => void) => Reply {
  // require, not import: the program runs in a worker from its source text, with nothing imported.
  const fs = require("node:fs") as typeof import("node:fs");
  const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, S_IFMT, S_IFREG, S_IFDIR } = fs.constants;
  const OPEN_DIRECTORY = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
  const DIRECTORY_MODE = 0o755;
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
  // A plain regular file or directory its owner can read: what stat-checks.ts's checkKind lets through,
  // written again here (the program cannot close over that module) only to know where to stop.
  const plain = (s: Observed): boolean => {
    const type = Number(s.mode) & S_IFMT;
    if (type !== S_IFREG && type !== S_IFDIR) return false;
    if ((Number(s.mode) & 0o7000) !== 0) return false;
    if (type === S_IFREG) return s.nlink <= 1n && (Number(s.mode) & 0o400) !== 0;
    return (Number(s.mode) & 0o500) === 0o500;
  };
  const isDirectory = (s: Observed): boolean => (Number(s.mode) & S_IFMT) === S_IFDIR;

  const closeQuietly = (fd: number): void => {
    try {
      fs.closeSync(fd);
    } catch {
      // EBADF or EIO: the descriptor is released either way; nothing closes one twice (walk.ts releases each listing once).
    }
  };

  const list = (request: ListRequest, post: (part: ListedRecord[]) => void): ListingEnd => {
    // [0] stop, [1] records the caller took (STOP_WORD, TAKEN_WORD).
    const words = new Int32Array(request.words, 0, 2);
    let part: ListedRecord[] = [];
    /** Records listed so far: the index of the next one. */
    let count = 0;
    const fds = new Set<number>();
    let entries = 0;
    class Stop {}
    const record = (listed: ListedRecord): void => {
      for (;;) {
        if (Atomics.load(words, 0) !== 0) throw new Stop();
        const taken = Atomics.load(words, 1);
        if (count - taken < request.aheadRecords) break;
        // Far enough ahead: hand over what it holds, so the caller has a part to take, and wait
        // until it takes one or stops (each notifies word 1).
        if (part.length > 0) {
          post(part);
          part = [];
        }
        Atomics.wait(words, 1, taken);
      }
      part.push(listed);
      count += 1;
      if (part.length >= request.partRecords) {
        post(part);
        part = [];
      }
    };
    const visit = (path: Buffer, target: Buffer, self: number, depth: number, opened: Observed, fd: number): void => {
      let holdsFiles = false;
      // Names a few hundred at a time: a directory of a million names is never read whole.
      let handle: import("node:fs").Dir;
      try {
        handle = fs.opendirSync(path, { encoding: "buffer" as BufferEncoding, bufferSize: 512 });
      } catch (error) {
        record({ kind: "end", directory: self, readFailure: failure(error) });
        throw new Stop();
      }
      try {
        for (;;) {
          let dirent: import("node:fs").Dirent | null;
          try {
            dirent = handle.readSync();
          } catch (error) {
            record({ kind: "end", directory: self, readFailure: failure(error) });
            throw new Stop();
          }
          if (dirent === null) break;
          const name = dirent.name as unknown as Buffer;
          const index = count;
          const entry = (seen: Omit<ListedEntry, "kind" | "name" | "parent" | "depth">): void => {
            record({ kind: "entry", name, parent: self, depth: depth + 1, ...seen });
          };
          entries += 1;
          const location = Buffer.concat([path, Buffer.from("/"), name]);
          let lstat: Observed;
          try {
            lstat = observe(fs.lstatSync(location, { bigint: true }));
          } catch (error) {
            entry({ lstatFailure: failure(error) });
            throw new Stop();
          }
          if (entries > request.maxEntries || !plain(lstat) || (isDirectory(lstat) && depth + 1 > request.maxDepth)) {
            entry({ lstat });
            throw new Stop();
          }
          if (!isDirectory(lstat)) {
            entry({ lstat });
            holdsFiles = true;
            continue;
          }
          let childFd: number;
          try {
            childFd = fs.openSync(location, OPEN_DIRECTORY);
          } catch (error) {
            entry({ lstat, openFailure: failure(error) });
            throw new Stop();
          }
          fds.add(childFd);
          let childOpened: Observed;
          try {
            childOpened = observe(fs.fstatSync(childFd, { bigint: true }));
          } catch (error) {
            entry({ lstat, fd: childFd, inspectFailure: failure(error) });
            throw new Stop();
          }
          if (!isDirectory(childOpened) || !same(lstat, childOpened) || !plain(childOpened)) {
            entry({ lstat, fd: childFd, opened: childOpened });
            throw new Stop();
          }
          const childTarget = Buffer.concat([target, Buffer.from("/"), name]);
          try {
            fs.mkdirSync(childTarget, { mode: DIRECTORY_MODE });
            fs.chmodSync(childTarget, DIRECTORY_MODE);
          } catch (error) {
            entry({ lstat, fd: childFd, opened: childOpened, makeFailure: failure(error) });
            throw new Stop();
          }
          entry({ lstat, fd: childFd, opened: childOpened });
          visit(Buffer.from(`/proc/self/fd/${childFd}`), childTarget, index, depth + 1, childOpened, childFd);
        }
      } finally {
        handle.closeSync();
      }
      // The same descriptor, so the same inode: only its entries (size, times) or its mode (ctime) can differ.
      let after: Observed;
      try {
        after = observe(fs.fstatSync(fd, { bigint: true }));
      } catch (error) {
        record({ kind: "end", directory: self, readFailure: failure(error) });
        throw new Stop();
      }
      if (!same(opened, after)) {
        record({ kind: "end", directory: self, after });
        throw new Stop();
      }
      // Nothing is copied through a directory without files: its descriptor is not needed any more.
      if (!holdsFiles && self !== -1) {
        fds.delete(fd);
        closeQuietly(fd);
        record({ kind: "end", directory: self, after, closed: true });
        return;
      }
      record({ kind: "end", directory: self, after });
    };
    let complete = true;
    try {
      visit(Buffer.from(request.root), Buffer.from(request.target), -1, 0, request.rootOpened, request.rootFd);
    } catch (error) {
      if (!(error instanceof Stop)) {
        // Nothing unexpected may leave descriptors open in this process.
        for (const fd of fds) closeQuietly(fd);
        throw error;
      }
      complete = false;
    }
    // The last part: after a Stop of the listing's own it ends with the record to refuse.
    if (part.length > 0) post(part);
    return { complete, fds: [...fds] };
  };

  const release = (request: ReleaseRequest): number => {
    let changed = -1;
    for (const [index, { fd, expected }] of request.check.entries()) {
      try {
        if (!same(expected, observe(fs.fstatSync(fd, { bigint: true })))) changed = index;
      } catch {
        changed = index;
      }
      if (changed !== -1) break;
    }
    for (const fd of request.close) closeQuietly(fd);
    return changed;
  };

  return (request, post) => (request.op === "list" ? list(request, post) : release(request));
}

/** Two: one harvest at a time uses one, and two Runs' harvests need not queue. */
const pool = createWorkerPool("agentcage-harvest", 2, listingProgram);

/** How a listing is handed over: records a part, and records it may make past those taken. */
export type ListingPace = { readonly partRecords: number; readonly aheadRecords: number };

const PACE: ListingPace = { partRecords: HARVEST_LISTING_PART_RECORDS, aheadRecords: HARVEST_LISTING_AHEAD_RECORDS };

/**
 * Starts listing the source pinned at `root` (its descriptor `rootFd`, fstat'ed as `rootOpened`),
 * making its directories under `target`. Whoever starts it stops it or reads every part, then
 * awaits `ended` and releases its `fds`.
 */
export function listSource(
  root: string,
  rootFd: number,
  rootOpened: Observed,
  target: string,
  limits: { readonly maxEntries: number; readonly maxDepth: number },
  pace: ListingPace = PACE,
): Listing {
  const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const words = new Int32Array(shared);
  const arrived: (readonly ListedRecord[])[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const request: ListRequest = { op: "list", root, rootFd, rootOpened, target, ...limits, ...pace, words: shared };
  const ended = pool.run(request, (part) => {
    arrived.push(part);
    wake?.();
  }) as Promise<ListingEnd>;
  const settle = (): void => {
    settled = true;
    wake?.();
  };
  ended.then(settle, settle);
  async function* parts(): AsyncGenerator<readonly ListedRecord[]> {
    for (;;) {
      const part = arrived.shift();
      if (part !== undefined) {
        // Taken: the listing may go on up to aheadRecords past it.
        Atomics.add(words, TAKEN_WORD, part.length);
        Atomics.notify(words, TAKEN_WORD);
        yield part;
      } else if (settled) {
        // Every part came before the answer: rethrows a failed listing's error.
        await ended;
        return;
      } else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const stop = (): void => {
    Atomics.store(words, STOP_WORD, 1);
    Atomics.notify(words, TAKEN_WORD);
  };
  return { parts: parts(), stop, ended };
}

/**
 * Checks each directory of `check` once more against what it was, then closes every descriptor of
 * `close`; resolves with the index (into `check`) of the first directory that changed, or -1.
 */
export async function releaseDirectories(check: ReleaseRequest["check"], close: readonly number[]): Promise<number> {
  return (await pool.run({ op: "release", check, close })) as number;
}
