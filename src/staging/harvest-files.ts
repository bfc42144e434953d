// Reading a Harvest's files back (the service's artifacts, the command's inputs upload): a list with
// each file's size and sha256, one file opened, or the whole tree as a tar stream (an input
// directory's refusing a hard link).
// Invariant: every read goes through directories opened without following a link, so no path a
// caller names and no link in the tree can reach anything outside the root it was given.

import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readdir, type FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import tar from "tar-stream";
import { InputsError } from "./archive-extract.js";

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a FIFO cannot hang the open.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** One thing found below the root: a directory, or a file to open through `at` while the walk waits on it. */
type Found = { readonly path: string; readonly kind: "directory" } | { readonly path: string; readonly kind: "file"; readonly at: string };

/** Whether a path relative to the root ("a/b.txt") is left out of a walk, with all below it. */
type Skip = (path: string) => boolean;

/** Walks `root` depth first, names sorted, parents before children; links and special files are left out. Nothing when `root` is missing. */
async function* walk(root: string, skip: Skip = () => false): AsyncGenerator<Found> {
  let top: FileHandle;
  try {
    top = await open(root, DIRECTORY_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  yield* walkIn(top, "", skip);
}

async function* walkIn(directory: FileHandle, prefix: string, skip: Skip): AsyncGenerator<Found> {
  try {
    const base = `/proc/self/fd/${directory.fd}`;
    const entries = (await readdir(base, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (skip(path)) continue;
      if (entry.isDirectory()) {
        const child = await open(`${base}/${entry.name}`, DIRECTORY_FLAGS).catch(() => undefined);
        if (child === undefined) continue;
        yield { path, kind: "directory" };
        yield* walkIn(child, path, skip);
      } else if (entry.isFile()) {
        yield { path, kind: "file", at: `${base}/${entry.name}` };
      }
    }
  } finally {
    await directory.close();
  }
}

/** Opens a regular file without following a link; undefined when it is gone or is no longer a regular file. */
async function openFileAt(at: string): Promise<{ readonly handle: FileHandle; readonly size: number; readonly links: number } | undefined> {
  const handle = await open(at, FILE_FLAGS).catch(() => undefined);
  if (handle === undefined) return undefined;
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    return undefined;
  }
  return { handle, size: stats.size, links: stats.nlink };
}

export type ArtifactFile = { readonly path: string; readonly size: number; readonly sha256: string };

/** Every regular file below `root` with its size and sha256, sorted by path. */
export async function listArtifacts(root: string): Promise<ArtifactFile[]> {
  const files: ArtifactFile[] = [];
  for await (const found of walk(root)) {
    if (found.kind !== "file") continue;
    const opened = await openFileAt(found.at);
    if (opened === undefined) continue;
    try {
      const hash = createHash("sha256");
      for await (const chunk of opened.handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
      files.push({ path: found.path, size: opened.size, sha256: hash.digest("hex") });
    } finally {
      await opened.handle.close();
    }
  }
  return files;
}

/**
 * Opens the file `relative` names below `root`: each directory opened without following a link,
 * the file too. `refused` when the path escapes or names a link or anything but a regular file;
 * undefined when there is no such file.
 */
export async function openArtifact(
  root: string,
  relative: string,
): Promise<{ readonly handle: FileHandle; readonly size: number } | { readonly refused: string } | undefined> {
  const parts = relative.split("/");
  if (relative.includes("\0") || parts.some((part) => part === "" || part === "." || part === "..")) {
    return {
      refused: `artifact path ${JSON.stringify(relative)} is not a plain relative path inside the Harvest; name a file as GET /v1/runs/:id/artifacts lists it`,
    };
  }
  let directory = await open(root, DIRECTORY_FLAGS).catch(() => undefined);
  if (directory === undefined) return undefined;
  try {
    for (const part of parts.slice(0, -1)) {
      const next: FileHandle | NodeJS.ErrnoException = await open(`/proc/self/fd/${directory.fd}/${part}`, DIRECTORY_FLAGS).catch(
        (error: NodeJS.ErrnoException) => error,
      );
      if (!("fd" in next)) {
        // O_DIRECTORY|O_NOFOLLOW on a link answers ENOTDIR, as for a file: lstat tells them apart.
        if (await isLink(`/proc/self/fd/${directory.fd}/${part}`))
          return { refused: `artifact path ${JSON.stringify(relative)} goes through a link; links are never followed` };
        return undefined;
      }
      await directory.close();
      directory = next;
    }
    const at = `/proc/self/fd/${directory.fd}/${parts.at(-1) as string}`;
    const handle: FileHandle | NodeJS.ErrnoException = await open(at, FILE_FLAGS).catch((error: NodeJS.ErrnoException) => error);
    if (!("fd" in handle)) {
      if (handle.code === "ELOOP") return { refused: `artifact ${JSON.stringify(relative)} is a link; links are never followed` };
      return undefined;
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      return {
        refused: `artifact ${JSON.stringify(relative)} is not a regular file; fetch the files GET /v1/runs/:id/artifacts lists, or artifacts.tar for all`,
      };
    }
    return { handle, size: stats.size };
  } finally {
    await directory.close();
  }
}

async function isLink(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true;
}

/**
 * The whole tree below `root` as an uncompressed tar stream: directories 0755, files 0644, no
 * links; `skip` leaves out a path and everything below it.
 */
export function packArtifacts(root: string, skip?: Skip): Readable {
  return packTree(root, skip, false);
}

/**
 * A caller's input directory as packArtifacts packs a tree, for an upload (`agentcage run --remote
 * --in`, the MCP tool's `inputs`): a hard link (a file of more than one name, judged on the open
 * file) fails the stream with an InputsError naming it, since its bytes may be a file's outside `root`.
 */
export function packInputs(root: string, skip?: Skip): Readable {
  return packTree(root, skip, true);
}

function packTree(root: string, skip: Skip | undefined, refuseHardLinks: boolean): Readable {
  const pack = tar.pack();
  const fill = async () => {
    for await (const found of walk(root, skip)) {
      if (found.kind === "directory") {
        await new Promise<void>((resolve, reject) =>
          pack.entry({ name: `${found.path}/`, type: "directory", mode: 0o755 }, (error) => (error ? reject(error) : resolve())),
        );
        continue;
      }
      const opened = await openFileAt(found.at);
      if (opened === undefined) continue;
      try {
        if (refuseHardLinks && opened.links > 1) {
          throw new InputsError(
            400,
            `inputs entry ${JSON.stringify(found.path)} is a hard link (link count ${opened.links}), whose bytes may be a file's outside the directory; links are refused: put a copy of the file there instead`,
          );
        }
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ name: found.path, type: "file", mode: 0o644, size: opened.size }, (error) => (error ? reject(error) : resolve()));
          const source = opened.handle.createReadStream({ autoClose: false });
          source.on("error", reject);
          source.pipe(sink as unknown as NodeJS.WritableStream);
        });
      } finally {
        await opened.handle.close();
      }
    }
    pack.finalize();
  };
  fill().catch((error: unknown) => pack.destroy(error as Error));
  return Readable.from(pack);
}
