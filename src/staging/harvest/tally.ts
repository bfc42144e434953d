// One walk's running tally (entries, files, directories, bytes) and the limits it is held to:
// the one place a count is compared with its limit and a limit's refusal is worded. Invariant: a
// file's bytes are counted before its copy starts, so the total is checked against what will be
// copied, and a copy never adds to it.

import type { HarvestRefusal } from "../../plan/index.js";
import type { HarvestLimits } from "./arguments.js";
import type { Observed } from "./listing.js";
import { entryText, refusal } from "./refusals.js";

/** A file the walk has checked and counted, queued for a copy worker: where it is, where it goes, and what it was seen as. */
export type Entry = { readonly location: Buffer; readonly target: Buffer; readonly relative: Buffer; readonly expected: Observed };

/**
 * One walk. The listing's records are checked one at a time, in walk order, so the first refusal
 * met is the one a walk name by name would meet; only the copying of file contents runs
 * elsewhere, in batches (copy.ts).
 */
export type Walk = {
  readonly limits: HarvestLimits;
  readonly signal: AbortSignal | undefined;
  /** Batches of copies in flight; each removes itself when it settles. */
  readonly copies: Set<Promise<void>>;
  /** The files of the next batch, not handed to a worker yet, and their bytes. */
  batch: Entry[];
  batchBytes: number;
  /** The first refusal met by a copy in flight; the walk stops at its next entry once set. */
  failure: HarvestRefusal | undefined;
  entries: number;
  files: number;
  directories: number;
  /** Bytes of the files started (their lstat size; a file harvested has exactly that many). */
  bytes: number;
};

export function createWalk(limits: HarvestLimits, signal: AbortSignal | undefined): Walk {
  return { limits, signal, copies: new Set(), batch: [], batchBytes: 0, failure: undefined, entries: 0, files: 0, directories: 0, bytes: 0 };
}

/** Counts one more entry, and refuses it when it is one more than maxEntries. */
export function countEntry(walk: Walk, relative: Buffer): HarvestRefusal | undefined {
  walk.entries += 1;
  if (walk.entries <= walk.limits.maxEntries) return undefined;
  return refusal(
    "too_many_entries",
    relative,
    `${entryText(relative)} is one entry more than MAX_HARVEST_ENTRIES (${walk.limits.maxEntries} files and directories); leave fewer files in out/, for example one archive`,
  );
}

/** A directory at a depth greater than maxDepth is refused; the source's direct children are at depth 1. */
export function checkDepth(walk: Walk, relative: Buffer, depth: number): HarvestRefusal | undefined {
  if (depth <= walk.limits.maxDepth) return undefined;
  return refusal(
    "too_deep",
    relative,
    `${entryText(relative)} is a directory ${depth} levels deep, deeper than MAX_HARVEST_DEPTH (${walk.limits.maxDepth}); write a flatter tree`,
  );
}

export function checkFileSize(walk: Walk, relative: Buffer, size: bigint): HarvestRefusal | undefined {
  if (size <= BigInt(walk.limits.maxFileBytes)) return undefined;
  return refusal(
    "file_too_large",
    relative,
    `${entryText(relative)} holds ${size} bytes, more than MAX_HARVEST_FILE_BYTES (${walk.limits.maxFileBytes}); write smaller files, or split this one`,
  );
}

/** Whether `extra` more bytes would take the harvest past maxTotalBytes. */
export function checkTotal(walk: Walk, relative: Buffer, extra: bigint): HarvestRefusal | undefined {
  if (BigInt(walk.bytes) + extra <= BigInt(walk.limits.maxTotalBytes)) return undefined;
  return refusal(
    "total_too_large",
    relative,
    `${entryText(relative)} brings the harvest past MAX_HARVEST_TOTAL_BYTES (${walk.limits.maxTotalBytes}); leave fewer or smaller files in out/`,
  );
}
