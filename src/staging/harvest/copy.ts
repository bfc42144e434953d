// The copy of one file's bytes, HARVEST_PARALLEL_FILES at a time. Invariant: a file is copied only
// if its handle, opened through its pinned directory without following a link, is the inode lstat
// saw, unchanged, and fstat after the copy shows it still unchanged with exactly its size read: no
// file is harvested with a size or content it never had. A copy's refusal lands in walk.failure.

import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { HarvestRefusal } from "../../plan/index.js";
import { HARVEST_COPY_CHUNK_BYTES, HARVEST_PARALLEL_FILES } from "./limits.js";
import type { Observed } from "./listing.js";
import { changed, errorCode, ioError } from "./refusals.js";
import { checkKind, REPLACED_CODES, stateDifference } from "./stat-checks.js";
import { checkFileSize, type Walk } from "./tally.js";

/** One file of a pinned directory: reached at `location` (through the directory's descriptor), copied to `target`. */
export type Entry = { readonly location: Buffer; readonly target: Buffer; readonly relative: Buffer };

const FILE_MODE = 0o644;
/** O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the harvest in open(). */
const OPEN_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Starts a copy once fewer than HARVEST_PARALLEL_FILES are in flight; its refusal lands in
 * walk.failure, and the promise it adds to walk.copies never rejects.
 */
export async function startCopy(walk: Walk, relative: Buffer, copy: (chunk: Buffer) => Promise<HarvestRefusal | undefined>): Promise<void> {
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

/** Waits for every copy in flight. */
export async function settle(walk: Walk): Promise<void> {
  await Promise.all([...walk.copies]);
}

/**
 * Copies one regular file whose lstat (`expected`) size is already counted in walk.bytes. The
 * handle, opened through the pinned parent, must be the inode lstat saw, unchanged; no more than
 * that size is read; and after the copy fstat must still show the same inode, size and times, with
 * exactly its size read, or the harvest is refused (`changed_during_harvest`): no file is harvested
 * with a size or content it never had.
 */
export async function copyFile(walk: Walk, entry: Entry, expected: Observed, chunk: Buffer): Promise<HarvestRefusal | undefined> {
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
