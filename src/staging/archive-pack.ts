// Packs what staging put in a directory of a Run (a writable work/, a session's working copy) into
// the tar archive an engine unpacks into the Run's own volume: the one place that decides how a
// staged tree looks there. Directories, regular files and links as staged, modes as on disk, every
// entry owned by the agent's uid (as the root path's chown leaves it); anything else is refused.

import { lstat, opendir, readlink } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import tar, { type Header } from "tar-stream";

/** What a tmpfs charges a file's data in: whole pages. */
const PAGE_BYTES = 4096;

export type PackedTree = {
  /** The archive, entries relative to the directory (no entry for the directory itself). */
  readonly archive: Readable;
  /** Settles once every entry is written: with what the tree held, or the walk's failure (the archive then just ends, short). */
  readonly done: Promise<{ readonly usedBytes: number; readonly entries: number }>;
};

/** What the tree holds, in whole pages and entries below its root, as a tmpfs would count it. */
export async function measureTree(root: string): Promise<{ readonly usedBytes: number; readonly entries: number }> {
  let usedBytes = 0;
  let entries = 0;
  const visit = async (path: string): Promise<void> => {
    for await (const entry of await opendir(path)) {
      const child = join(path, entry.name);
      const stats = await lstat(child);
      entries += 1;
      if (stats.isFile()) usedBytes += Math.ceil(stats.size / PAGE_BYTES) * PAGE_BYTES;
      else if (stats.isDirectory()) await visit(child);
    }
  };
  await visit(root);
  return { usedBytes, entries };
}

/** Packs the tree under `root`; `owner` (uid and gid) on every entry, root's (0) when undefined. */
export function packTree(root: string, owner: { readonly uid: number; readonly gid: number } | undefined): PackedTree {
  const pack = tar.pack();
  const ids = { uid: owner?.uid ?? 0, gid: owner?.gid ?? 0 };
  let usedBytes = 0;
  let entries = 0;
  const visit = async (path: string, rel: string): Promise<void> => {
    for await (const entry of await opendir(path)) {
      const child = join(path, entry.name);
      const name = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const stats = await lstat(child);
      const header = { ...ids, name, mode: stats.mode & 0o777, mtime: stats.mtime };
      entries += 1;
      if (stats.isDirectory()) {
        await write({ ...header, name: `${name}/`, type: "directory" }, undefined);
        await visit(child, name);
      } else if (stats.isFile()) {
        usedBytes += Math.ceil(stats.size / PAGE_BYTES) * PAGE_BYTES;
        await write({ ...header, type: "file", size: stats.size }, child);
      } else if (stats.isSymbolicLink()) {
        await write({ ...header, type: "symlink", linkname: await readlink(child) }, undefined);
      } else {
        throw new Error(`${JSON.stringify(name)} is not a file, directory or link and cannot be put in the Run's volume`);
      }
    }
  };
  const write = (header: Partial<Header> & Pick<Header, "name">, file: string | undefined): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (file === undefined) {
        pack.entry(header, (error) => (error ? reject(error) : resolve()));
        return;
      }
      const sink = pack.entry(header, (error) => (error ? reject(error) : resolve()));
      pipeline(createReadStream(file), sink).catch(reject);
    });
  const done = visit(root, "").then(
    () => {
      pack.finalize();
      return { usedBytes, entries };
    },
    (error: unknown) => {
      // Ended, not failed: an 'error' on a stream its reader does not listen to would be thrown. `done` says why.
      pack.destroy();
      throw error;
    },
  );
  return { archive: pack as unknown as Readable, done };
}
