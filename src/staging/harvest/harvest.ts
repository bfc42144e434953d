// Harvest: the one place that decides what of the agent's out/ reaches the caller, and how.
// Invariants: nothing in the source is followed, opened or copied unless lstat proves it a regular
// file or a directory (and, for a file, fstat of the opened handle proves it the same file); the
// destination changes only by renaming a fully built sibling directory onto it, so any refusal
// leaves it exactly as it was; no entry name is ever printed raw.

import { randomBytes } from "node:crypto";
import { constants, type BigIntStats } from "node:fs";
import { chmod, lstat, mkdir, open, opendir, rename, rm, stat, type FileHandle } from "node:fs/promises";
import path from "node:path";
import {
  HARVEST_COPY_CHUNK_BYTES,
  HARVEST_PARALLEL_FILES,
  MAX_HARVEST_DEPTH,
  MAX_HARVEST_ENTRIES,
  MAX_HARVEST_FILE_BYTES,
  MAX_HARVEST_TOTAL_BYTES,
} from "./limits.js";
import { printableName } from "./printable-name.js";
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
export class HarvestArgumentError extends Error {
  override readonly name = "HarvestArgumentError";
}

const HARVEST_OPTION_NAMES = new Set(["maxDepth", "maxFileBytes", "maxTotalBytes", "maxEntries", "signal", "replace"]);

/**
 * Copies the regular files and directories under `source` to `destination`, or refuses the whole
 * harvest. Run it only once nothing writes to `source` any more (after the container is gone).
 * Resolves with a refusal, never throws, for anything found on disk; throws HarvestArgumentError only for
 * arguments that cannot mean anything (relative paths, overlapping paths, bad limits).
 */
export async function harvest(
  source: string,
  destination: string,
  options: HarvestOptions = {},
  ...extra: never[]
): Promise<HarvestResult> {
  if (extra.length > 0) throw new HarvestArgumentError(`harvest takes (source, destination, options); ${extra.length} more argument(s) were given; pass the limits, signal and replace inside options`);
  checkOptions(options);
  const paths = checkPaths(source, destination);
  const { signal, replace, ...limits } = options;
  const effective = checkLimits(limits);
  try {
    return await harvestChecked(paths, effective, signal, replace === true);
  } catch (error) {
    return refused(ioError(EMPTY, "harvest", error));
  }
}

/** The limits, each defaulting as HarvestLimits says, and a signal that stops the copy at its next entry. */
export type HarvestOptions = Partial<HarvestLimits> & {
  readonly signal?: AbortSignal;
  /** Replace a destination that already holds something; default false: such a destination is refused, nothing is deleted. */
  readonly replace?: boolean;
};

type CheckedPaths = { readonly source: string; readonly destination: string; readonly parent: string; readonly base: string };

/**
 * One walk. Names are read, counted and lstat-checked one at a time, in directory order, so a
 * source with a million names is refused after MAX_HARVEST_ENTRIES of them without the rest ever
 * being listed; only the copying of file contents runs HARVEST_PARALLEL_FILES at a time.
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
  /** Bytes of the files started (their lstat size), corrected by what reading them counted. */
  bytes: number;
};

const EMPTY = Buffer.alloc(0);
const SLASH = Buffer.from("/");
const ROOT_ENTRY = JSON.stringify(".");
const SPECIAL_MODE_BITS = 0o7000n;
const OWNER_READ = 0o400n;
const OWNER_EXECUTE = 0o100n;
const FILE_MODE = 0o644;
const DIRECTORY_MODE = 0o755;
/** The name of a temporary or set-aside directory keeps at most this much of the destination's name. */
const SIBLING_NAME_CHARACTERS = 64;

async function harvestChecked(paths: CheckedPaths, limits: HarvestLimits, signal: AbortSignal | undefined, replace: boolean): Promise<HarvestResult> {
  const destinationRefusal = await checkDestination(paths, replace);
  if (destinationRefusal !== undefined) return refused(destinationRefusal);
  const sourceStats = await sourceDirectory(paths.source);
  if ("reason" in sourceStats) return refused(sourceStats);

  const temporary = siblingPath(paths, "harvest");
  try {
    await mkdir(temporary, { mode: 0o700 });
  } catch (error) {
    return refused(ioError(EMPTY, "create the temporary directory beside the destination", error));
  }
  const chunks = Array.from({ length: HARVEST_PARALLEL_FILES }, () => Buffer.allocUnsafe(HARVEST_COPY_CHUNK_BYTES));
  const walk: Walk = { limits, signal, copies: new Set(), chunks, failure: undefined, entries: 0, files: 0, directories: 0, bytes: 0 };
  let installed = false;
  try {
    const walkRefusal = await copyDirectory(walk, Buffer.from(paths.source), Buffer.from(temporary), EMPTY, 0, sourceStats);
    await Promise.all([...walk.copies]);
    const refusalMet = walkRefusal ?? walk.failure;
    if (refusalMet !== undefined) return refused(refusalMet);
    await chmod(temporary, DIRECTORY_MODE);
    const installRefusal = await install(paths, temporary);
    if (installRefusal !== undefined) return refused(installRefusal);
    installed = true;
    return { ok: true, files: walk.files, directories: walk.directories, bytes: walk.bytes };
  } finally {
    await Promise.all([...walk.copies]);
    if (!installed) await removeQuietly(temporary);
  }
}

/** Refuses a destination that is a link or not a directory, and a missing parent, before any work. */
async function checkDestination(paths: CheckedPaths, replace: boolean): Promise<HarvestRefusal | undefined> {
  try {
    const parent = await stat(paths.parent);
    if (!parent.isDirectory()) {
      return refusal("io_error", EMPTY, `the destination's parent ${printablePath(paths.parent)} is not a directory; pass a destination inside an existing directory`);
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
    return refusal("io_error", EMPTY, `the destination ${printablePath(paths.destination)} exists and is not a directory; pass a directory or a path that does not exist yet`);
  }
  return undefined;
}

/** The source's own lstat, or why it cannot be harvested: it must be a real directory. */
async function sourceDirectory(source: string): Promise<BigIntStats | HarvestRefusal> {
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
  return stats;
}

/**
 * Puts the built tree in place: a rename onto a missing destination, or, over an existing
 * directory, set the old one aside, rename the new one in, then remove the old one. Checked again
 * here because the destination may have changed during the walk.
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
  // cannot be undone by refusing, so it is left to removeQuietly's best effort.
  await removeQuietly(old);
  return undefined;
}

/**
 * Copies the entries of the directory `source` (at `depth`, the source root being 0) into the
 * existing directory `target`. At most one directory handle per level is open at a time.
 */
async function copyDirectory(
  walk: Walk,
  source: Buffer,
  target: Buffer,
  relative: Buffer,
  depth: number,
  expected: BigIntStats,
): Promise<HarvestRefusal | undefined> {
  try {
    for await (const name of directoryNames(source)) {
      if (walk.failure !== undefined) return walk.failure;
      if (walk.signal?.aborted) return refusal("interrupted", relative, `the Harvest was stopped at ${entryText(relative)}: ${String((walk.signal.reason as Error | undefined)?.message ?? walk.signal.reason)}`);
      const entryRefusal = await copyEntry(
        walk,
        Buffer.concat([source, SLASH, name]),
        Buffer.concat([target, SLASH, name]),
        relative.length === 0 ? name : Buffer.concat([relative, SLASH, name]),
        name,
        depth + 1,
      );
      if (entryRefusal !== undefined) return entryRefusal;
    }
    // Node has no openat: a directory swapped for a link while it was read shows up here as a
    // different inode (the runtime harvests only once nothing writes to the source).
    const after = await lstat(source, { bigint: true });
    if (!after.isDirectory() || after.dev !== expected.dev || after.ino !== expected.ino) {
      return refusal("symlink", relative, `${entryText(relative)} was replaced while it was harvested; leave out/ alone until the harvest is over`);
    }
    return undefined;
  } catch (error) {
    return ioError(relative, "read the directory", error);
  }
}

/** The byte-exact names in a directory, read a few at a time (opendir's own buffer). */
async function* directoryNames(directory: Buffer): AsyncGenerator<Buffer> {
  // The Node types declare only string encodings for opendir; "buffer" is honoured at run time.
  const handle = await opendir(directory, { encoding: "buffer" as BufferEncoding });
  for await (const dirent of handle) {
    const name: unknown = dirent.name;
    if (!Buffer.isBuffer(name)) throw new TypeError("opendir returned a name that is not a Buffer");
    yield name;
  }
}

/**
 * Depth: the source's direct children are at depth 1, their children at 2, and so on. A directory
 * at a depth greater than maxDepth is refused (`too_deep`) before it is read; a file is never
 * refused for depth, since it can only sit in a directory that was allowed.
 */
async function copyEntry(
  walk: Walk,
  source: Buffer,
  target: Buffer,
  relative: Buffer,
  name: Buffer,
  depth: number,
): Promise<HarvestRefusal | undefined> {
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
  try {
    const stats = await lstat(source, { bigint: true });
    const kindRefusal = checkKind(stats, relative);
    if (kindRefusal !== undefined) return kindRefusal;
    if (stats.isDirectory()) {
      if (depth > walk.limits.maxDepth) {
        return refusal(
          "too_deep",
          relative,
          `${entryText(relative)} is a directory ${depth} levels deep, deeper than MAX_HARVEST_DEPTH (${walk.limits.maxDepth}); write a flatter tree`,
        );
      }
      await mkdir(target, { mode: DIRECTORY_MODE });
      await chmod(target, DIRECTORY_MODE);
      walk.directories += 1;
      return await copyDirectory(walk, source, target, relative, depth, stats);
    }
    const sizeRefusal = checkFileSize(walk, relative, stats.size) ?? checkTotal(walk, relative, stats.size);
    if (sizeRefusal !== undefined) return sizeRefusal;
    walk.bytes += Number(stats.size);
    await startCopy(walk, relative, (chunk) => copyFile(walk, source, target, relative, stats, chunk));
    return undefined;
  } catch (error) {
    return ioError(relative, "copy", error);
  }
}

/** What lstat alone decides: only plain regular files and directories the owner can read pass. */
function checkKind(stats: BigIntStats, relative: Buffer): HarvestRefusal | undefined {
  const entry = entryText(relative);
  if (stats.isSymbolicLink()) {
    return refusal("symlink", relative, `${entry} is a symbolic link; harvest copies only regular files and directories, so write the file itself into out/, not a link to it`);
  }
  if (!stats.isFile() && !stats.isDirectory()) {
    return refusal("special_file", relative, `${entry} is a ${specialKind(stats)}; harvest copies only regular files and directories, so write its contents into a regular file instead`);
  }
  const mode = `0${(stats.mode & 0o7777n).toString(8)}`;
  if ((stats.mode & SPECIAL_MODE_BITS) !== 0n) {
    return refusal("special_mode", relative, `${entry} has a setuid, setgid or sticky bit (mode ${mode}); leave those bits off, since harvested files become 0644 and directories 0755`);
  }
  if (stats.isFile() && stats.nlink > 1n) {
    return refusal("hardlink", relative, `${entry} is a hard link (link count ${stats.nlink}); write a separate copy of the file into out/ instead of linking it`);
  }
  const readable = stats.isFile() ? OWNER_READ : OWNER_READ | OWNER_EXECUTE;
  if ((stats.mode & readable) !== readable) {
    return refusal("unreadable", relative, `${entry} is not readable by its owner (mode ${mode}); give it owner read permission (0644 for a file, 0755 for a directory) or leave it out of out/`);
  }
  return undefined;
}

function specialKind(stats: BigIntStats): string {
  if (stats.isFIFO()) return "FIFO";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice()) return "character device";
  if (stats.isBlockDevice()) return "block device";
  return "special file";
}

/** Starts a copy once fewer than HARVEST_PARALLEL_FILES are in flight; its refusal lands in walk.failure. */
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
 * Copies one regular file whose lstat size is already counted in walk.bytes. The opened handle must
 * be the inode lstat saw; bytes are counted while reading, so a file that grows is refused after
 * reading maxFileBytes + 1 bytes at most.
 */
async function copyFile(
  walk: Walk,
  source: Buffer,
  target: Buffer,
  relative: Buffer,
  expected: BigIntStats,
  chunk: Buffer,
): Promise<HarvestRefusal | undefined> {
  let input: FileHandle;
  try {
    input = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errorCode(error) === "ELOOP") return checkKind(await lstat(source, { bigint: true }), relative) ?? ioError(relative, "open", error);
    return ioError(relative, "open", error);
  }
  try {
    const opened = await input.stat({ bigint: true });
    if (!opened.isFile() || opened.dev !== expected.dev || opened.ino !== expected.ino) {
      return refusal("symlink", relative, `${entryText(relative)} was replaced between inspection and opening, which only a link or a running writer can do; leave out/ alone until the harvest is over`);
    }
    const openedRefusal = checkKind(opened, relative) ?? checkFileSize(walk, relative, opened.size);
    if (openedRefusal !== undefined) return openedRefusal;
    const output = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, FILE_MODE);
    try {
      await output.chmod(FILE_MODE);
      const copied = await copyBytes(walk, input, output, relative, Number(expected.size), chunk);
      if (copied !== undefined) return copied;
      walk.files += 1;
      return undefined;
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/** `size` is the file's reported size, or (`counted`) the bytes read from it so far. */
function checkFileSize(walk: Walk, relative: Buffer, size: bigint | number, counted = false): HarvestRefusal | undefined {
  if (BigInt(size) <= BigInt(walk.limits.maxFileBytes)) return undefined;
  const holds = counted ? "grew while it was read to more than" : `holds ${size} bytes, more than`;
  return refusal(
    "file_too_large",
    relative,
    `${entryText(relative)} ${holds} MAX_HARVEST_FILE_BYTES (${walk.limits.maxFileBytes}); write smaller files, or split this one`,
  );
}

/** Whether `extra` more bytes would take the harvest past maxTotalBytes. */
function checkTotal(walk: Walk, relative: Buffer, extra: bigint | number): HarvestRefusal | undefined {
  if (BigInt(walk.bytes) + BigInt(extra) <= BigInt(walk.limits.maxTotalBytes)) return undefined;
  return refusal(
    "total_too_large",
    relative,
    `${entryText(relative)} brings the harvest past MAX_HARVEST_TOTAL_BYTES (${walk.limits.maxTotalBytes}); leave fewer or smaller files in out/`,
  );
}

/**
 * Streams `input` to `output`, never reading more than one byte past the file limit, and moves
 * walk.bytes from the `reserved` size to the bytes actually read.
 */
async function copyBytes(
  walk: Walk,
  input: FileHandle,
  output: FileHandle,
  relative: Buffer,
  reserved: number,
  chunk: Buffer,
): Promise<HarvestRefusal | undefined> {
  let copied = 0;
  for (;;) {
    const wanted = Math.min(chunk.length, walk.limits.maxFileBytes - copied + 1);
    const { bytesRead } = await input.read(chunk, 0, wanted, null);
    if (bytesRead === 0) break;
    copied += bytesRead;
    const grown = copied - reserved;
    if (grown > 0) {
      const sizeRefusal = checkFileSize(walk, relative, copied, true) ?? checkTotal(walk, relative, grown);
      if (sizeRefusal !== undefined) return sizeRefusal;
      walk.bytes += grown;
      reserved = copied;
    }
    let written = 0;
    while (written < bytesRead) {
      const { bytesWritten } = await output.write(chunk, written, bytesRead - written);
      written += bytesWritten;
    }
  }
  walk.bytes -= reserved - copied;
  return undefined;
}

function checkPaths(source: string, destination: string): CheckedPaths {
  for (const [role, value] of [["source", source], ["destination", destination]] as const) {
    if (typeof value !== "string" || !path.isAbsolute(value) || value.includes("\0")) {
      throw new HarvestArgumentError(`harvest ${role} ${JSON.stringify(value)} is not an absolute path; pass an absolute path without NUL characters`);
    }
  }
  const resolvedSource = path.resolve(source);
  const resolvedDestination = path.resolve(destination);
  const base = path.basename(resolvedDestination);
  if (base === "") throw new HarvestArgumentError(`harvest destination ${JSON.stringify(destination)} is the file-system root; pass a directory below it`);
  if (within(resolvedSource, resolvedDestination) || within(resolvedDestination, resolvedSource)) {
    throw new HarvestArgumentError(
      `harvest source ${JSON.stringify(source)} and destination ${JSON.stringify(destination)} overlap; pass a destination outside the source and not containing it`,
    );
  }
  return { source: resolvedSource, destination: resolvedDestination, parent: path.dirname(resolvedDestination), base };
}

function within(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new HarvestArgumentError(`harvest options ${describe(options)} is not an object; pass { maxEntries?, maxTotalBytes?, signal?, replace? } or leave it out`);
  }
  const unknown = Object.keys(options).filter((key) => !HARVEST_OPTION_NAMES.has(key));
  if (unknown.length > 0) throw new HarvestArgumentError(`harvest option ${JSON.stringify(unknown[0])} is not one harvest knows; use ${[...HARVEST_OPTION_NAMES].join(", ")}`);
  const { signal, replace } = options as HarvestOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new HarvestArgumentError(`harvest option signal ${describe(signal)} is not an AbortSignal; pass controller.signal or leave it out`);
  if (replace !== undefined && typeof replace !== "boolean") throw new HarvestArgumentError(`harvest option replace ${describe(replace)} is not a boolean; pass true to replace a destination that holds files`);
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
      throw new HarvestArgumentError(`harvest limit ${key} ${JSON.stringify(value)} is not a non-negative integer; pass a whole number or leave it out for the default`);
    }
  }
  return effective;
}

/** `.<basename>.<purpose>-<16 hex>` in the destination's parent. */
function siblingPath(paths: CheckedPaths, purpose: "harvest" | "old"): string {
  const base = Array.from(paths.base).slice(0, SIBLING_NAME_CHARACTERS).join("");
  return path.join(paths.parent, `.${base}.${purpose}-${randomBytes(8).toString("hex")}`);
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
  const code = errorCode(error) ?? (error instanceof Error ? error.name : "an unknown error");
  const syscall = error instanceof Error && "syscall" in error && typeof error.syscall === "string" ? ` in ${error.syscall}` : "";
  return refusal("io_error", relative, `harvest could not ${action} ${entryText(relative)} (${code}${syscall}); check the host's disk and permissions, then harvest again`);
}

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

function refused(refusal: HarvestRefusal): HarvestResult {
  return { ok: false, refusal };
}
