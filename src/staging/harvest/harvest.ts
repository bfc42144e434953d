// Harvest: the one place that decides what of the agent's out/ reaches the caller, and how.
// Invariants: each source directory is opened once, without following a link, and all below it is
// reached through that descriptor (/proc/self/fd/N/<name>); a file is copied only if lstat, and fstat
// before and after the copy, show the same unchanged regular file; a directory is refused if it
// changed between its opening and the end of its listing, or, if it holds files, by the time every
// file is copied; the destination changes only by renaming a fully built sibling onto it, so a
// refusal leaves it as it was; no name is printed raw. A worker lists the tree (listing.ts); this
// thread checks what it listed and copies the files.
// After a crash mid-install, the next harvest (or recoverHarvest) renames the earlier tree back if
// the destination is missing and removes the hidden siblings: the destination holds what it held
// before the interrupted harvest, or, past its second rename, that harvest's whole result.

import { constants, type BigIntStats } from "node:fs";
import { chmod, lstat, mkdir, open, opendir, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { AgentcageError } from "../../errors/index.js";
import {
  HARVEST_COPY_CHUNK_BYTES,
  HARVEST_PARALLEL_FILES,
  MAX_HARVEST_DEPTH,
  MAX_HARVEST_ENTRIES,
  MAX_HARVEST_FILE_BYTES,
  MAX_HARVEST_TOTAL_BYTES,
} from "./limits.js";
import { listSource, releaseDirectories, type CallFailure, type ListedEntry, type Listing, type Observed } from "./listing.js";
import { overlapsAsWritten, pathsOverlap } from "./overlap.js";
import { printableName } from "./printable-name.js";
import { claimSibling, recoverSiblings, siblingName, type HarvestRecovery, type SiblingPurpose } from "./recover.js";
import type { HarvestRefusal, HarvestRefusalReason, HarvestResult } from "../../plan/index.js";

export type HarvestLimits = {
  /** Directory levels below the source (its direct children are level 1). Default MAX_HARVEST_DEPTH (8). */
  readonly maxDepth: number;
  /** Bytes in one file. Default MAX_HARVEST_FILE_BYTES (8 MiB). */
  readonly maxFileBytes: number;
  /** Bytes in all files together. Default MAX_HARVEST_TOTAL_BYTES (64 MiB). */
  readonly maxTotalBytes: number;
  /** Files plus directories, the source itself not counted. Default MAX_HARVEST_ENTRIES (2000). */
  readonly maxEntries: number;
};

/** A harvest() call that cannot mean anything: the parameter, the value, and what to pass instead. */
export class HarvestArgumentError extends AgentcageError {
  override readonly name = "HarvestArgumentError";
  readonly code = "invalid_harvest_arguments";
}

const HARVEST_OPTION_NAMES = new Set(["maxDepth", "maxFileBytes", "maxTotalBytes", "maxEntries", "signal", "replace"]);

/**
 * Copies the regular files and directories under `source` to `destination`, or refuses the whole
 * harvest. Run it only once nothing writes to `source` any more (after the container is gone): a
 * file or directory that changes while it is harvested refuses it (`changed_during_harvest`).
 * Recovers first what an interrupted harvest to the same destination left (see recoverHarvest).
 * Resolves with a refusal, never throws, for anything found on disk; throws HarvestArgumentError only for
 * arguments that cannot mean anything (relative paths, overlapping paths, bad limits).
 */
export async function harvest(source: string, destination: string, options: HarvestOptions = {}, ...extra: never[]): Promise<HarvestResult> {
  if (extra.length > 0)
    throw new HarvestArgumentError(
      `harvest takes (source, destination, options); ${extra.length} more argument(s) were given; pass the limits, signal and replace inside options`,
    );
  checkOptions(options);
  const paths = checkPaths(source, destination);
  const { signal, replace, ...limits } = options;
  const effective = checkLimits(limits);
  // A path whose links cannot be resolved is refused here, not let through: the overlap check
  // would otherwise pass it unchecked.
  let overlap: boolean;
  try {
    overlap = await pathsOverlap(paths.source, paths.destination);
  } catch (error) {
    return refused(
      refusal(
        "io_error",
        EMPTY,
        `harvest could not resolve the links of its source and destination to check that neither lies inside the other ${failureText(error)}; pass paths with no link loop, whose directories this process can search`,
      ),
    );
  }
  if (overlap) {
    throw new HarvestArgumentError(
      `harvest source ${JSON.stringify(source)} and destination ${JSON.stringify(destination)} overlap once links are resolved; pass a destination outside the source and not containing it`,
    );
  }
  try {
    return await harvestChecked(paths, effective, signal, replace === true);
  } catch (error) {
    return refused(ioError(EMPTY, "harvest", error));
  }
}

/**
 * Puts `destination` back in a consistent state after a harvest to it was interrupted (the process
 * died): when the destination is missing and the tree an install had set aside is beside it, that
 * tree is renamed back, so the interrupted harvest never happened; then every leftover hidden
 * sibling of the destination (`.<name>.harvest-<hex>`, `.<name>.old-<hex>`) is removed. harvest()
 * does this itself first; call it at start-up for each destination a previous process may have been
 * harvesting to. Siblings a harvest of this process is still using are left alone. Resolves with
 * what it did, or why it could not; throws HarvestArgumentError only for a path that cannot mean anything.
 */
export async function recoverHarvest(destination: string, ...extra: never[]): Promise<HarvestRecovery> {
  if (extra.length > 0)
    throw new HarvestArgumentError(`recoverHarvest takes (destination); ${extra.length} more argument(s) were given; pass only the destination`);
  const checked = checkDestinationPath(destination);
  return recoverSiblings(checked.parent, checked.base);
}

/** The limits, each defaulting as HarvestLimits says, and a signal that stops the copy at its next entry (a listing under way, bounded by maxEntries, is finished first). */
export type HarvestOptions = Partial<HarvestLimits> & {
  readonly signal?: AbortSignal;
  /** Replace a destination that already holds something; default false: such a destination is refused, nothing is deleted. */
  readonly replace?: boolean;
};

type CheckedPaths = { readonly source: string; readonly destination: string; readonly parent: string; readonly base: string };

/**
 * A directory of the source opened without following a link, and its fstat then. Whatever lies
 * below it is named through `path` (/proc/self/fd/<fd>), which stays this very directory however
 * the tree is renamed or swapped meanwhile, for as long as the handle is open.
 */
type PinnedDirectory = { readonly handle: FileHandle; readonly path: Buffer; readonly stats: BigIntStats };

/**
 * One walk. The listing's records are checked one at a time, in walk order, so the first refusal
 * met is the one a walk name by name would meet; only the copying of file contents runs
 * HARVEST_PARALLEL_FILES at a time.
 */
type Walk = {
  readonly limits: HarvestLimits;
  readonly signal: AbortSignal | undefined;
  /** File copies in flight; each removes itself when it settles. */
  readonly copies: Set<Promise<void>>;
  /** Copy buffers not in use, one per possible copy in flight. */
  readonly chunks: Buffer[];
  /** The first refusal met by a copy in flight; the walk stops at its next entry once set. */
  failure: HarvestRefusal | undefined;
  entries: number;
  files: number;
  directories: number;
  /** Bytes of the files started (their lstat size; a file harvested has exactly that many). */
  bytes: number;
};

/** A directory of the source, pinned: its descriptor's path, where it is made at the destination, its fstat when opened. */
type Directory = { readonly path: Buffer; readonly target: Buffer; readonly relative: Buffer; readonly fd: number; readonly opened: Observed };

const EMPTY = Buffer.alloc(0);
const SLASH = Buffer.from("/");
const ROOT_ENTRY = JSON.stringify(".");
const SPECIAL_MODE_BITS = 0o7000n;
const TYPE_BITS = BigInt(constants.S_IFMT);
const TYPE = {
  file: BigInt(constants.S_IFREG),
  directory: BigInt(constants.S_IFDIR),
  symlink: BigInt(constants.S_IFLNK),
  fifo: BigInt(constants.S_IFIFO),
  socket: BigInt(constants.S_IFSOCK),
  characterDevice: BigInt(constants.S_IFCHR),
  blockDevice: BigInt(constants.S_IFBLK),
};
const OWNER_READ = 0o400n;
const OWNER_EXECUTE = 0o100n;
const FILE_MODE = 0o644;
const DIRECTORY_MODE = 0o755;
const OPEN_DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the harvest in open(). */
const OPEN_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** What open() says of a name that is no longer the directory or file lstat saw there. */
const REPLACED_CODES = new Set(["ELOOP", "ENOENT", "ENOTDIR", "ENXIO"]);

async function harvestChecked(paths: CheckedPaths, limits: HarvestLimits, signal: AbortSignal | undefined, replace: boolean): Promise<HarvestResult> {
  const recovery = await recoverSiblings(paths.parent, paths.base);
  if (!recovery.ok) return refused(refusal("io_error", EMPTY, recovery.message));
  const destinationRefusal = await checkDestination(paths, replace);
  if (destinationRefusal !== undefined) return refused(destinationRefusal);
  const root = await openSource(paths.source);
  if ("reason" in root) return refused(root);
  const temporary = siblingPath(paths, "harvest");
  const release = claimSibling(temporary);
  try {
    return await harvestInto(paths, temporary, root, limits, signal);
  } finally {
    release();
  }
}

/** Walks the pinned source `root` into `temporary` and installs it; always closes `root` and removes `temporary` unless installed. */
async function harvestInto(
  paths: CheckedPaths,
  temporary: string,
  root: PinnedDirectory,
  limits: HarvestLimits,
  signal: AbortSignal | undefined,
): Promise<HarvestResult> {
  try {
    await mkdir(temporary, { mode: 0o700 });
  } catch (error) {
    await root.handle.close().catch(() => undefined);
    return refused(ioError(EMPTY, "create the temporary directory beside the destination", error));
  }
  const chunks = Array.from({ length: HARVEST_PARALLEL_FILES }, () => Buffer.allocUnsafe(HARVEST_COPY_CHUNK_BYTES));
  const walk: Walk = { limits, signal, copies: new Set(), chunks, failure: undefined, entries: 0, files: 0, directories: 0, bytes: 0 };
  const rootDirectory: Directory = { path: root.path, target: Buffer.from(temporary), relative: EMPTY, fd: root.handle.fd, opened: observed(root.stats) };
  // The directories accepted so far and still open, by their listing index (the source's is -1),
  // in walk order; each is checked again once every file is copied.
  const accepted = new Map<number, Directory>([[-1, rootDirectory]]);
  let listing: Listing | undefined;
  let released = false;
  let installed = false;
  try {
    if (signal?.aborted) return refused(interrupted(EMPTY, signal));
    listing = await listSource(root.path.toString(), root.handle.fd, rootDirectory.opened, temporary, limits);
    const walkRefusal = await copyListed(walk, listing, accepted);
    await settle(walk);
    // Set first: a release that failed halfway is never tried again, since closing a descriptor
    // twice could close one this process has opened since under the same number.
    released = true;
    const checked = [...accepted.values()];
    const changedIndex = await releaseDirectories(
      checked.map((directory) => ({ fd: directory.fd, expected: directory.opened })),
      listing.fds,
    );
    const changedAfter = changedIndex === -1 ? undefined : (checked[changedIndex] as Directory);
    const refusalMet =
      walkRefusal ??
      walk.failure ??
      (changedAfter === undefined
        ? undefined
        : changed(changedAfter.relative, "an entry was added, removed or renamed in it, or its mode changed, while its files were copied"));
    if (refusalMet !== undefined) return refused(refusalMet);
    await chmod(temporary, DIRECTORY_MODE);
    const installRefusal = await install(paths, temporary);
    if (installRefusal !== undefined) return refused(installRefusal);
    installed = true;
    return { ok: true, files: walk.files, directories: walk.directories, bytes: walk.bytes };
  } finally {
    await settle(walk);
    if (listing !== undefined && !released) await releaseDirectories([], listing.fds).catch(() => undefined);
    await root.handle.close().catch(() => undefined);
    if (!installed) await removeQuietly(temporary);
  }
}

/** Waits for every copy in flight. */
async function settle(walk: Walk): Promise<void> {
  await Promise.all([...walk.copies]);
}

/** Refuses a destination that is a link or not a directory, and a missing parent, before any work. */
async function checkDestination(paths: CheckedPaths, replace: boolean): Promise<HarvestRefusal | undefined> {
  try {
    const parent = await stat(paths.parent);
    if (!parent.isDirectory()) {
      return refusal(
        "io_error",
        EMPTY,
        `the destination's parent ${printablePath(paths.parent)} is not a directory; pass a destination inside an existing directory`,
      );
    }
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") {
      return refusal("io_error", EMPTY, `the destination's parent ${printablePath(paths.parent)} does not exist; create it before harvesting`);
    }
    return ioError(EMPTY, "inspect the destination's parent", error);
  }
  const current = await lstatOrMissing(paths.destination);
  if (current === undefined) return undefined;
  const kind = checkExistingDestination(paths, current);
  if (kind !== undefined || replace) return kind;
  // Never delete what we were not given: an existing destination must be empty unless replacing was asked for.
  const handle = await opendir(paths.destination);
  const first = await handle.read();
  await handle.close();
  if (first === null) return undefined;
  return refusal(
    "destination_not_empty",
    EMPTY,
    `the destination ${printablePath(paths.destination)} already holds files; pass an empty or new directory, or replace: true to replace it whole`,
  );
}

function checkExistingDestination(paths: CheckedPaths, current: BigIntStats): HarvestRefusal | undefined {
  if (current.isSymbolicLink()) {
    return refusal(
      "destination_is_symlink",
      EMPTY,
      `the destination ${printablePath(paths.destination)} is a symbolic link; harvest never writes through a link, so pass a real directory or a path that does not exist yet`,
    );
  }
  if (!current.isDirectory()) {
    return refusal(
      "io_error",
      EMPTY,
      `the destination ${printablePath(paths.destination)} exists and is not a directory; pass a directory or a path that does not exist yet`,
    );
  }
  return undefined;
}

/** The source pinned, or why it cannot be harvested: it must be a real directory. */
async function openSource(source: string): Promise<PinnedDirectory | HarvestRefusal> {
  const stats = await lstatOrMissing(source);
  if (stats === undefined) {
    return refusal("source_missing", EMPTY, `the harvest source ${printablePath(source)} does not exist; pass the directory the agent wrote into`);
  }
  if (stats.isSymbolicLink()) {
    return refusal("symlink", EMPTY, `the harvest source ${printablePath(source)} is a symbolic link; pass the real directory the agent wrote into`);
  }
  if (!stats.isDirectory()) {
    return refusal("source_missing", EMPTY, `the harvest source ${printablePath(source)} is not a directory; pass the directory the agent wrote into`);
  }
  return openDirectory(Buffer.from(source), EMPTY, stats);
}

/**
 * Opens the directory at `location`, which lstat saw as `expected`, without following a link, and
 * refuses it unless fstat of the handle shows the same directory, unchanged.
 */
async function openDirectory(location: Buffer, relative: Buffer, expected: BigIntStats): Promise<PinnedDirectory | HarvestRefusal> {
  let handle: FileHandle;
  try {
    handle = await open(location, OPEN_DIRECTORY);
  } catch (error) {
    if (REPLACED_CODES.has(errorCode(error) ?? ""))
      return changed(relative, "it was removed or replaced by something that is not a directory before it was opened");
    return ioError(relative, "open the directory", error);
  }
  try {
    const opened = await handle.stat({ bigint: true });
    const difference = opened.isDirectory() ? stateDifference(expected, opened) : "it was replaced by something that is not a directory";
    const openedRefusal = difference === undefined ? checkKind(opened, relative) : changed(relative, `${difference} before it was opened`);
    if (openedRefusal === undefined) return { handle, path: Buffer.from(`/proc/self/fd/${handle.fd}`), stats: opened };
    await handle.close();
    return openedRefusal;
  } catch (error) {
    await handle.close().catch(() => undefined);
    return ioError(relative, "inspect the directory", error);
  }
}

/**
 * Puts the built tree in place: a rename onto a missing destination, or, over an existing
 * directory, set the old one aside, rename the new one in, then remove the old one. Checked again
 * here because the destination may have changed during the walk. A process that dies between the
 * two renames leaves the old tree in its sibling, for recoverSiblings to rename back.
 */
async function install(paths: CheckedPaths, temporary: string): Promise<HarvestRefusal | undefined> {
  const current = await lstatOrMissing(paths.destination);
  if (current === undefined) {
    try {
      await rename(temporary, paths.destination);
      return undefined;
    } catch (error) {
      return ioError(EMPTY, "rename the harvested tree onto the destination", error);
    }
  }
  const existingRefusal = checkExistingDestination(paths, current);
  if (existingRefusal !== undefined) return existingRefusal;
  const old = siblingPath(paths, "old");
  const release = claimSibling(old);
  try {
    try {
      await rename(paths.destination, old);
    } catch (error) {
      return ioError(EMPTY, "set the existing destination aside", error);
    }
    try {
      await rename(temporary, paths.destination);
    } catch (error) {
      await rename(old, paths.destination).catch(() => undefined);
      return ioError(EMPTY, "rename the harvested tree onto the destination", error);
    }
    // The harvest has succeeded once the new tree is in place; a failure to remove the old one
    // cannot be undone by refusing, so it is left to removeQuietly's best effort (and the next recovery).
    await removeQuietly(old);
    return undefined;
  } finally {
    release();
  }
}

/**
 * Checks the listing's records in walk order, as a walk name by name would meet them, and starts
 * the copy of each file that passes; adds each directory that passes to `accepted` (which holds
 * the source's), and takes out again one the listing closed because it held no files. Resolves with
 * the first refusal met, by a check or by a copy already settled.
 */
async function copyListed(walk: Walk, listing: Listing, accepted: Map<number, Directory>): Promise<HarvestRefusal | undefined> {
  for (const [index, record] of listing.records.entries()) {
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
      continue;
    }
    const parent = accepted.get(record.parent) as Directory;
    if (walk.signal?.aborted) return interrupted(parent.relative, walk.signal);
    const checked = await copyEntry(walk, parent, record);
    if (checked === undefined) continue;
    if ("reason" in checked) return checked;
    accepted.set(index, checked);
  }
  // The listing stops only at a record refused above; one that stopped anywhere else would be a partial tree.
  if (!listing.complete)
    return refusal("io_error", EMPTY, "harvest's listing of the source stopped at an entry it takes; harvest again, and report this if it happens twice");
  return undefined;
}

/**
 * One entry. Depth: the source's direct children are at depth 1, their children at 2, and so on.
 * A directory at a depth greater than maxDepth is refused (`too_deep`) before it is opened; a file
 * is never refused for depth, since it can only sit in a directory that was allowed. Resolves with
 * the directory an accepted directory became, undefined for a file whose copy has started, or a refusal.
 */
async function copyEntry(walk: Walk, parent: Directory, record: ListedEntry): Promise<Directory | HarvestRefusal | undefined> {
  const name = Buffer.from(record.name.buffer, record.name.byteOffset, record.name.byteLength);
  const relative = parent.relative.length === 0 ? name : Buffer.concat([parent.relative, SLASH, name]);
  if (name.length === 0 || name.includes(0x2f) || name.includes(0x00)) {
    return refusal("bad_name", relative, `an entry under ${entryText(relative)} has an empty or impossible name; give every file a plain non-empty name`);
  }
  walk.entries += 1;
  if (walk.entries > walk.limits.maxEntries) {
    return refusal(
      "too_many_entries",
      relative,
      `${entryText(relative)} is one entry more than MAX_HARVEST_ENTRIES (${walk.limits.maxEntries} files and directories); leave fewer files in out/, for example one archive`,
    );
  }
  const stats = record.lstat;
  if (stats === undefined) return ioError(relative, "copy", failureError(record.lstatFailure));
  const kindRefusal = checkKind(stats, relative);
  if (kindRefusal !== undefined) return kindRefusal;
  const target = Buffer.concat([parent.target, SLASH, name]);
  if (isType(stats, TYPE.directory)) {
    if (record.depth > walk.limits.maxDepth) {
      return refusal(
        "too_deep",
        relative,
        `${entryText(relative)} is a directory ${record.depth} levels deep, deeper than MAX_HARVEST_DEPTH (${walk.limits.maxDepth}); write a flatter tree`,
      );
    }
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
  const sizeRefusal = checkFileSize(walk, relative, stats.size) ?? checkTotal(walk, relative, stats.size);
  if (sizeRefusal !== undefined) return sizeRefusal;
  walk.bytes += Number(stats.size);
  const entry: Entry = { location: Buffer.concat([parent.path, SLASH, name]), target, relative };
  await startCopy(walk, relative, (chunk) => copyFile(walk, entry, stats, chunk));
  return undefined;
}

/** One file of a pinned directory: reached at `location` (through the directory's descriptor), copied to `target`. */
type Entry = { readonly location: Buffer; readonly target: Buffer; readonly relative: Buffer };

function interrupted(relative: Buffer, signal: AbortSignal): HarvestRefusal {
  return refusal(
    "interrupted",
    relative,
    `the Harvest was stopped at ${entryText(relative)}: ${String((signal.reason as Error | undefined)?.message ?? signal.reason)}`,
  );
}

/** The fields of a stat the checks read, as a plain object that crosses to a worker. */
function observed(stats: Observed): Observed {
  return { dev: stats.dev, ino: stats.ino, mode: stats.mode, nlink: stats.nlink, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

/** A failure the listing reported, as the Error ioError reads its code and system call from. */
function failureError(failure: CallFailure | undefined): Error {
  const error = new Error(failure?.name ?? "the listing gave no reason");
  error.name = failure?.name ?? "Error";
  return Object.assign(error, failure?.code === undefined ? {} : { code: failure.code }, failure?.syscall === undefined ? {} : { syscall: failure.syscall });
}

function isType(stats: Observed, type: bigint): boolean {
  return (stats.mode & TYPE_BITS) === type;
}

/** What lstat alone decides: only plain regular files and directories the owner can read pass. */
function checkKind(stats: Observed, relative: Buffer): HarvestRefusal | undefined {
  const entry = entryText(relative);
  if (isType(stats, TYPE.symlink)) {
    return refusal(
      "symlink",
      relative,
      `${entry} is a symbolic link; harvest copies only regular files and directories, so write the file itself into out/, not a link to it`,
    );
  }
  const file = isType(stats, TYPE.file);
  if (!file && !isType(stats, TYPE.directory)) {
    return refusal(
      "special_file",
      relative,
      `${entry} is a ${specialKind(stats)}; harvest copies only regular files and directories, so write its contents into a regular file instead`,
    );
  }
  const mode = `0${(stats.mode & 0o7777n).toString(8)}`;
  if ((stats.mode & SPECIAL_MODE_BITS) !== 0n) {
    return refusal(
      "special_mode",
      relative,
      `${entry} has a setuid, setgid or sticky bit (mode ${mode}); leave those bits off, since harvested files become 0644 and directories 0755`,
    );
  }
  if (file && stats.nlink > 1n) {
    return refusal(
      "hardlink",
      relative,
      `${entry} is a hard link (link count ${stats.nlink}); write a separate copy of the file into out/ instead of linking it`,
    );
  }
  const readable = file ? OWNER_READ : OWNER_READ | OWNER_EXECUTE;
  if ((stats.mode & readable) !== readable) {
    return refusal(
      "unreadable",
      relative,
      `${entry} is not readable by its owner (mode ${mode}); give it owner read permission (0644 for a file, 0755 for a directory) or leave it out of out/`,
    );
  }
  return undefined;
}

function specialKind(stats: Observed): string {
  if (isType(stats, TYPE.fifo)) return "FIFO";
  if (isType(stats, TYPE.socket)) return "socket";
  if (isType(stats, TYPE.characterDevice)) return "character device";
  if (isType(stats, TYPE.blockDevice)) return "block device";
  return "special file";
}

/**
 * Starts a copy once fewer than HARVEST_PARALLEL_FILES are in flight; its refusal lands in
 * walk.failure, and the promise it adds to walk.copies never rejects.
 */
async function startCopy(walk: Walk, relative: Buffer, copy: (chunk: Buffer) => Promise<HarvestRefusal | undefined>): Promise<void> {
  while (walk.copies.size >= HARVEST_PARALLEL_FILES) await Promise.race(walk.copies);
  const chunk = walk.chunks.pop() ?? Buffer.allocUnsafe(HARVEST_COPY_CHUNK_BYTES);
  const running: Promise<void> = copy(chunk)
    .catch((error: unknown) => ioError(relative, "copy", error))
    .then((copyRefusal) => {
      walk.chunks.push(chunk);
      walk.copies.delete(running);
      walk.failure ??= copyRefusal;
    });
  walk.copies.add(running);
}

/**
 * Copies one regular file whose lstat (`expected`) size is already counted in walk.bytes. The
 * handle, opened through the pinned parent, must be the inode lstat saw, unchanged; no more than
 * that size is read; and after the copy fstat must still show the same inode, size and times, with
 * exactly its size read, or the harvest is refused (`changed_during_harvest`): no file is harvested
 * with a size or content it never had.
 */
async function copyFile(walk: Walk, entry: Entry, expected: Observed, chunk: Buffer): Promise<HarvestRefusal | undefined> {
  const { location, target, relative } = entry;
  let input: FileHandle;
  try {
    input = await open(location, OPEN_FILE);
  } catch (error) {
    if (REPLACED_CODES.has(errorCode(error) ?? ""))
      return changed(relative, "it was removed or replaced by something that is not a regular file before it was opened");
    return ioError(relative, "open", error);
  }
  try {
    const opened = await input.stat({ bigint: true });
    const difference = opened.isFile() ? stateDifference(expected, opened) : "it was replaced by something that is not a regular file";
    if (difference !== undefined) return changed(relative, `${difference} before it was opened`);
    const openedRefusal = checkKind(opened, relative) ?? checkFileSize(walk, relative, opened.size);
    if (openedRefusal !== undefined) return openedRefusal;
    const output = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
    try {
      await output.chmod(FILE_MODE);
      const copied = await copyBytes(input, output, Number(opened.size), chunk);
      const after = await input.stat({ bigint: true });
      const change = stateDifference(opened, after) ?? (BigInt(copied) === after.size ? undefined : `${copied} bytes were read of its ${after.size}`);
      if (change !== undefined) return changed(relative, `${change} while it was copied`);
      walk.files += 1;
      return undefined;
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/**
 * How `after` differs from `before` for the same path: another inode, another size, or other
 * modification or change times (a write, a rename in or out, a chmod); undefined when it does not.
 */
function stateDifference(before: Observed, after: Observed): string | undefined {
  if (before.dev !== after.dev || before.ino !== after.ino) return "it was replaced by another file or directory";
  if (before.size !== after.size) return `its size went from ${before.size} to ${after.size} bytes`;
  if (before.mtimeNs !== after.mtimeNs || before.ctimeNs !== after.ctimeNs) return "it was modified";
  return undefined;
}

function changed(relative: Buffer, what: string): HarvestRefusal {
  return refusal(
    "changed_during_harvest",
    relative,
    `${entryText(relative)} changed while it was harvested (${what}); harvest only a tree nothing writes to any more, after the container is gone`,
  );
}

function checkFileSize(walk: Walk, relative: Buffer, size: bigint): HarvestRefusal | undefined {
  if (size <= BigInt(walk.limits.maxFileBytes)) return undefined;
  return refusal(
    "file_too_large",
    relative,
    `${entryText(relative)} holds ${size} bytes, more than MAX_HARVEST_FILE_BYTES (${walk.limits.maxFileBytes}); write smaller files, or split this one`,
  );
}

/** Whether `extra` more bytes would take the harvest past maxTotalBytes. */
function checkTotal(walk: Walk, relative: Buffer, extra: bigint): HarvestRefusal | undefined {
  if (BigInt(walk.bytes) + extra <= BigInt(walk.limits.maxTotalBytes)) return undefined;
  return refusal(
    "total_too_large",
    relative,
    `${entryText(relative)} brings the harvest past MAX_HARVEST_TOTAL_BYTES (${walk.limits.maxTotalBytes}); leave fewer or smaller files in out/`,
  );
}

/**
 * Copies the first `size` bytes of `input` (its fstat size, already within the limits) to `output`,
 * never reading past them; resolves with the bytes copied, fewer if the file ended early.
 */
async function copyBytes(input: FileHandle, output: FileHandle, size: number, chunk: Buffer): Promise<number> {
  let copied = 0;
  while (copied < size) {
    const { bytesRead } = await input.read(chunk, 0, Math.min(chunk.length, size - copied), null);
    if (bytesRead === 0) break;
    let written = 0;
    while (written < bytesRead) {
      const { bytesWritten } = await output.write(chunk, written, bytesRead - written);
      written += bytesWritten;
    }
    copied += bytesRead;
  }
  return copied;
}

function checkPaths(source: string, destination: string): CheckedPaths {
  checkAbsolute("harvest source", source);
  const checked = checkDestinationPath(destination);
  const resolvedSource = path.resolve(source);
  if (overlapsAsWritten(resolvedSource, checked.destination)) {
    throw new HarvestArgumentError(
      `harvest source ${JSON.stringify(source)} and destination ${JSON.stringify(destination)} overlap; pass a destination outside the source and not containing it`,
    );
  }
  return { source: resolvedSource, ...checked };
}

function checkDestinationPath(destination: string): Omit<CheckedPaths, "source"> {
  checkAbsolute("harvest destination", destination);
  const resolved = path.resolve(destination);
  const base = path.basename(resolved);
  if (base === "") throw new HarvestArgumentError(`harvest destination ${JSON.stringify(destination)} is the file-system root; pass a directory below it`);
  return { destination: resolved, parent: path.dirname(resolved), base };
}

function checkAbsolute(role: string, value: unknown): void {
  if (typeof value !== "string" || !path.isAbsolute(value) || value.includes("\0")) {
    throw new HarvestArgumentError(`${role} ${JSON.stringify(value)} is not an absolute path; pass an absolute path without NUL characters`);
  }
}

function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new HarvestArgumentError(
      `harvest options ${describe(options)} is not an object; pass { maxEntries?, maxTotalBytes?, signal?, replace? } or leave it out`,
    );
  }
  const unknown = Object.keys(options).filter((key) => !HARVEST_OPTION_NAMES.has(key));
  if (unknown.length > 0)
    throw new HarvestArgumentError(`harvest option ${JSON.stringify(unknown[0])} is not one harvest knows; use ${[...HARVEST_OPTION_NAMES].join(", ")}`);
  const { signal, replace } = options as HarvestOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new HarvestArgumentError(`harvest option signal ${describe(signal)} is not an AbortSignal; pass controller.signal or leave it out`);
  if (replace !== undefined && typeof replace !== "boolean")
    throw new HarvestArgumentError(`harvest option replace ${describe(replace)} is not a boolean; pass true to replace a destination that holds files`);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function checkLimits(limits: Partial<HarvestLimits>): HarvestLimits {
  const effective: HarvestLimits = {
    maxDepth: limits.maxDepth ?? MAX_HARVEST_DEPTH,
    maxFileBytes: limits.maxFileBytes ?? MAX_HARVEST_FILE_BYTES,
    maxTotalBytes: limits.maxTotalBytes ?? MAX_HARVEST_TOTAL_BYTES,
    maxEntries: limits.maxEntries ?? MAX_HARVEST_ENTRIES,
  };
  for (const [key, value] of Object.entries(effective)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new HarvestArgumentError(
        `harvest limit ${key} ${JSON.stringify(value)} is not a non-negative integer; pass a whole number or leave it out for the default`,
      );
    }
  }
  return effective;
}

/** `.<basename>.<purpose>-<16 hex>` in the destination's parent (a long basename cut and hashed, see siblingName). */
function siblingPath(paths: CheckedPaths, purpose: SiblingPurpose): string {
  return path.join(paths.parent, siblingName(paths.base, purpose));
}

async function lstatOrMissing(target: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(target, { bigint: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
}

async function removeQuietly(target: string): Promise<void> {
  await rm(target, { recursive: true, force: true }).catch(() => undefined);
}

function printablePath(absolute: string): string {
  return printableName(Buffer.from(absolute));
}

function entryText(relative: Buffer): string {
  return relative.length === 0 ? ROOT_ENTRY : printableName(relative);
}

function refusal(reason: HarvestRefusalReason, relative: Buffer, message: string): HarvestRefusal {
  return { reason, entry: entryText(relative), message };
}

/** An unexpected failure, described by its code and system call only: Node's own message would quote the raw path. */
function ioError(relative: Buffer, action: string, error: unknown): HarvestRefusal {
  return refusal(
    "io_error",
    relative,
    `harvest could not ${action} ${entryText(relative)} ${failureText(error)}; check the host's disk and permissions, then harvest again`,
  );
}

/** "(CODE in syscall)": a failure told without Node's own message, which would quote the raw path. */
function failureText(error: unknown): string {
  const code = errorCode(error) ?? (error instanceof Error ? error.name : "an unknown error");
  const syscall = error instanceof Error && "syscall" in error && typeof error.syscall === "string" ? ` in ${error.syscall}` : "";
  return `(${code}${syscall})`;
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

function refused(refusal: HarvestRefusal): HarvestResult {
  return { ok: false, refusal };
}
