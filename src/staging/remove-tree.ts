// Removes a tree whatever an agent left in it, as root and not: the one way a Run directory (or a
// part of one) is deleted. Invariants: no recursion (any depth); no path longer than
// MAX_REMOVE_PATH_BYTES (a deep directory is moved up to a short name under the root first); links
// are removed, never followed; a directory of our own that we may not enter is made 0700 first;
// nothing on another filesystem is touched (a mount point below the root is refused).

import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, lstat, open, opendir, rename, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";

/**
 * Longest path handed to the kernel; PATH_MAX is 4096 bytes and a name may add 255 to it. Kept here,
 * not in limits.ts: this file imports only node: modules, so it can run on its own as another uid.
 */
export const MAX_REMOVE_PATH_BYTES = 1024;

/** Removes `root` and everything below it; a missing `root` is already removed. */
export async function removeTree(root: string): Promise<void> {
  const stats = await lstat(root).catch(ignoreMissing);
  if (stats === undefined) return;
  if (!stats.isDirectory()) {
    await unlink(root).catch(ignoreMissing);
    return;
  }
  // Depth first with an explicit stack; a directory is removed on its second visit, once its
  // subdirectories (above it on the stack) are gone.
  const stack: { path: string; emptied: boolean }[] = [{ path: root, emptied: false }];
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if (top.emptied) {
      await rmdir(top.path).catch(ignoreMissing);
      stack.pop();
      continue;
    }
    top.emptied = true;
    if (!(await enter(top.path, stats.dev))) continue;
    // Pinned: opened without following a link, then listed and emptied through its descriptor, so a
    // directory swapped for a link after it was listed cannot turn a removal onto anything else.
    const handle = await open(top.path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(ignoreMissing);
    if (handle === undefined) continue;
    try {
      const pinned = `/proc/self/fd/${handle.fd}`;
      for await (const entry of await opendir(pinned)) {
        // A dirent's type is lstat's: a link to a directory is a link, removed as one.
        if (!entry.isDirectory()) {
          await unlink(`${pinned}/${entry.name}`).catch(ignoreMissing);
          continue;
        }
        let path = join(top.path, entry.name);
        if (Buffer.byteLength(path) > MAX_REMOVE_PATH_BYTES) path = await moveUnder(root, path, stats.dev);
        stack.push({ path, emptied: false });
      }
    } finally {
      await handle.close();
    }
  }
}

/**
 * Readies a directory on device `dev` to be read, emptied and moved: owner rwx when it is ours.
 * False when it is gone; throws when it is another filesystem's mount point.
 */
async function enter(path: string, dev: number): Promise<boolean> {
  const stats = await lstat(path).catch(ignoreMissing);
  if (stats === undefined) return false;
  if (stats.dev !== dev) throw new Error(`${JSON.stringify(path)} is a mount point; unmount it before removing the tree that holds it`);
  if (stats.uid === process.getuid?.() && (stats.mode & 0o700) !== 0o700) await chmod(path, (stats.mode & 0o7777) | 0o700);
  return true;
}

/** Moves a deep directory to a fresh short name directly under `root`; returns where it now is. */
async function moveUnder(root: string, path: string, dev: number): Promise<string> {
  // Moving a directory to another parent rewrites its "..", which needs write permission on it.
  await enter(path, dev);
  for (;;) {
    const target = join(root, `.removing-${randomBytes(8).toString("hex")}`);
    try {
      await rename(path, target);
      return target;
    } catch (error) {
      // A name that happens to be taken: draw another.
      if (!["EEXIST", "ENOTEMPTY", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
}

function ignoreMissing(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
  throw error;
}
