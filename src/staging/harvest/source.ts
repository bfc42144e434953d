// Pinning the source: the one place the source directory is opened. Invariant: it must be a real
// directory, opened without following a link, whose fstat shows the very directory lstat saw,
// unchanged; all below it is then reached through that descriptor (/proc/self/fd/N/<name>).

import { constants, type BigIntStats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import type { HarvestRefusal } from "../../plan/index.js";
import { changed, EMPTY, errorCode, ioError, printablePath, refusal } from "./refusals.js";
import { checkKind, lstatOrMissing, REPLACED_CODES, stateDifference } from "./stat-checks.js";

/**
 * A directory of the source opened without following a link, and its fstat then. Whatever lies
 * below it is named through `path` (/proc/self/fd/<fd>), which stays this very directory however
 * the tree is renamed or swapped meanwhile, for as long as the handle is open.
 */
export type PinnedDirectory = { readonly handle: FileHandle; readonly path: Buffer; readonly stats: BigIntStats };

const OPEN_DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The source pinned, or why it cannot be harvested: it must be a real directory. */
export async function openSource(source: string): Promise<PinnedDirectory | HarvestRefusal> {
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
