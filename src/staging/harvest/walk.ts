// The walk: the pinned source listed by a worker (listing.ts), its records checked here one at a
// time in walk order as their parts arrive, each directory made and each file queued for the copy
// workers (copy.ts) while the listing goes on. Invariant: the first refusal met is the one a walk
// name by name would meet, and the listing is stopped there; a directory is refused if it changed
// between its opening and the end of its listing, or, if it holds files, by the time every file is
// copied; every descriptor the listing opened is released exactly once, after the listing ended.

import type { HarvestRefusal } from "../../plan/index.js";
import type { HarvestLimits } from "./arguments.js";
import { flushCopies, queueCopy, settle } from "./copy.js";
import { listSource, releaseDirectories, type ListedEntry, type ListedRecord, type Listing, type Observed } from "./listing.js";
import { changed, EMPTY, entryText, failureError, interrupted, ioError, refusal } from "./refusals.js";
import type { PinnedDirectory } from "./source.js";
import { checkKind, isType, observed, REPLACED_CODES, stateDifference, TYPE } from "./stat-checks.js";
import { checkDepth, checkFileSize, checkTotal, countEntry, createWalk, type Walk } from "./tally.js";

/** A directory of the source, pinned: its descriptor's path, where it is made at the destination, its fstat when opened. */
type Directory = { readonly path: Buffer; readonly target: Buffer; readonly relative: Buffer; readonly fd: number; readonly opened: Observed };

/** What a walk that refused nothing copied. */
export type Walked = { readonly files: number; readonly directories: number; readonly bytes: number };

const SLASH = Buffer.from("/");

/** Walks the pinned source `root` into the existing directory `temporary`; leaves `root` open, and settles every copy and releases every directory the listing opened before it resolves. */
export async function walkSource(
  root: PinnedDirectory,
  temporary: string,
  limits: HarvestLimits,
  signal: AbortSignal | undefined,
): Promise<Walked | HarvestRefusal> {
  const walk = createWalk(limits, signal);
  const rootDirectory: Directory = { path: root.path, target: Buffer.from(temporary), relative: EMPTY, fd: root.handle.fd, opened: observed(root.stats) };
  // The directories accepted so far and still open, by their listing index (the source's is -1),
  // in walk order; each is checked again once every file is copied.
  const accepted = new Map<number, Directory>([[-1, rootDirectory]]);
  if (signal?.aborted) return interrupted(EMPTY, signal);
  const listing = listSource(root.path.toString(), root.handle.fd, rootDirectory.opened, temporary, limits);
  let released = false;
  try {
    const walkRefusal = await copyListed(walk, listing, accepted);
    if (walkRefusal === undefined) await flushCopies(walk);
    // A refusal needs no more of the listing (stopping one that ended does nothing).
    listing.stop();
    const { fds } = await listing.ended;
    await settle(walk);
    // Set first: a release that failed halfway is never tried again, since closing a descriptor
    // twice could close one this process has opened since under the same number.
    released = true;
    const changedAfter = await releaseAccepted(accepted, fds);
    return walkRefusal ?? walk.failure ?? changedAfter ?? { files: walk.files, directories: walk.directories, bytes: walk.bytes };
  } finally {
    await settle(walk);
    if (!released) {
      listing.stop();
      // A listing whose worker failed closed its descriptors itself (or died with them: listing.ts).
      const ended = await listing.ended.catch(() => undefined);
      if (ended !== undefined) await releaseDirectories([], ended.fds).catch(() => undefined);
    }
  }
}

/** Closes every descriptor the listing opened (`fds`), checking first that each directory still accepted is as it was opened; refuses the first that changed. */
async function releaseAccepted(accepted: ReadonlyMap<number, Directory>, fds: readonly number[]): Promise<HarvestRefusal | undefined> {
  const checked = [...accepted.values()];
  const changedIndex = await releaseDirectories(
    checked.map((directory) => ({ fd: directory.fd, expected: directory.opened })),
    fds,
  );
  const changedAfter = changedIndex === -1 ? undefined : (checked[changedIndex] as Directory);
  if (changedAfter === undefined) return undefined;
  return changed(changedAfter.relative, "an entry was added, removed or renamed in it, or its mode changed, while its files were copied");
}

/**
 * Checks the listing's records in walk order, as a walk name by name would meet them, part by part
 * as the listing makes them, and starts the copy of each file that passes; adds each directory that
 * passes to `accepted` (which holds the source's), and takes out again one the listing closed
 * because it held no files. Resolves with the first refusal met, by a check or by a copy already
 * settled, and reads no part after it.
 */
async function copyListed(walk: Walk, listing: Listing, accepted: Map<number, Directory>): Promise<HarvestRefusal | undefined> {
  let index = 0;
  for await (const part of listing.parts) {
    for (const record of part) {
      const refused = await checkRecord(walk, record, index, accepted);
      if (refused !== undefined) return refused;
      index += 1;
    }
  }
  // The listing stops only at a record refused above; one that stopped anywhere else would be a partial tree.
  if (!(await listing.ended).complete)
    return refusal("io_error", EMPTY, "harvest's listing of the source stopped at an entry it takes; harvest again, and report this if it happens twice");
  return undefined;
}

/** One record of the listing, the `index`th: its refusal, or undefined once it is taken. */
async function checkRecord(walk: Walk, record: ListedRecord, index: number, accepted: Map<number, Directory>): Promise<HarvestRefusal | undefined> {
  if (walk.failure !== undefined) return walk.failure;
  if (record.kind === "end") {
    // A directory's end is its last record: nothing after it needs it in `accepted` once it is closed.
    const directory = accepted.get(record.directory) as Directory;
    if (record.after === undefined) return ioError(directory.relative, "read the directory", failureError(record.readFailure));
    // The same descriptor, so the same inode: only its entries (size, times) or its mode (ctime) can differ.
    if (stateDifference(directory.opened, record.after) !== undefined) {
      return changed(directory.relative, "an entry was added, removed or renamed in it, or its mode changed, while it was listed");
    }
    if (record.closed === true) accepted.delete(record.directory);
    return undefined;
  }
  const parent = accepted.get(record.parent) as Directory;
  if (walk.signal?.aborted) return interrupted(parent.relative, walk.signal);
  const checked = await copyEntry(walk, parent, record);
  if (checked === undefined) return undefined;
  if ("reason" in checked) return checked;
  accepted.set(index, checked);
  return undefined;
}

/**
 * One entry. Depth: the source's direct children are at depth 1, their children at 2, and so on.
 * A directory at a depth greater than maxDepth is refused (`too_deep`) before it is opened; a file
 * is never refused for depth, since it can only sit in a directory that was allowed. Resolves with
 * the directory an accepted directory became, undefined for a file queued for its copy, or a refusal.
 */
async function copyEntry(walk: Walk, parent: Directory, record: ListedEntry): Promise<Directory | HarvestRefusal | undefined> {
  const name = Buffer.from(record.name.buffer, record.name.byteOffset, record.name.byteLength);
  const relative = parent.relative.length === 0 ? name : Buffer.concat([parent.relative, SLASH, name]);
  if (name.length === 0 || name.includes(0x2f) || name.includes(0x00)) {
    return refusal("bad_name", relative, `an entry under ${entryText(relative)} has an empty or impossible name; give every file a plain non-empty name`);
  }
  const countRefusal = countEntry(walk, relative);
  if (countRefusal !== undefined) return countRefusal;
  const stats = record.lstat;
  if (stats === undefined) return ioError(relative, "copy", failureError(record.lstatFailure));
  const kindRefusal = checkKind(stats, relative);
  if (kindRefusal !== undefined) return kindRefusal;
  const target = Buffer.concat([parent.target, SLASH, name]);
  if (isType(stats, TYPE.directory)) return acceptDirectory(walk, record, stats, relative, target);
  const sizeRefusal = checkFileSize(walk, relative, stats.size) ?? checkTotal(walk, relative, stats.size);
  if (sizeRefusal !== undefined) return sizeRefusal;
  walk.bytes += Number(stats.size);
  await queueCopy(walk, { location: Buffer.concat([parent.path, SLASH, name]), target, relative, expected: stats });
  return undefined;
}

/** A directory lstat saw as `stats`: accepted if no deeper than maxDepth and the listing opened it, unchanged, and made it at `target`. */
function acceptDirectory(walk: Walk, record: ListedEntry, stats: Observed, relative: Buffer, target: Buffer): Directory | HarvestRefusal {
  const depthRefusal = checkDepth(walk, relative, record.depth);
  if (depthRefusal !== undefined) return depthRefusal;
  if (record.openFailure !== undefined) {
    if (REPLACED_CODES.has(record.openFailure.code ?? ""))
      return changed(relative, "it was removed or replaced by something that is not a directory before it was opened");
    return ioError(relative, "open the directory", failureError(record.openFailure));
  }
  const opened = record.opened;
  if (opened === undefined || record.fd === undefined) return ioError(relative, "inspect the directory", failureError(record.inspectFailure));
  const difference = isType(opened, TYPE.directory) ? stateDifference(stats, opened) : "it was replaced by something that is not a directory";
  if (difference !== undefined) return changed(relative, `${difference} before it was opened`);
  const openedRefusal = checkKind(opened, relative);
  if (openedRefusal !== undefined) return openedRefusal;
  if (record.makeFailure !== undefined) return ioError(relative, "copy", failureError(record.makeFailure));
  walk.directories += 1;
  return { path: Buffer.from(`/proc/self/fd/${record.fd}`), target, relative, fd: record.fd, opened };
}
