// Copies what a Run's own volume held back onto the host's disk, from the engine's tar archive of
// it: the one place that decides which archive entries may land in a Run directory. Only regular
// files and directories (a writable work/'s links too, as links; no directory its owner could not
// read where the Harvest judges it, since its copy is made readable), named inside the archive's root,
// within the bounds the volume had (bytes, entries) and the staging depth; the first entry that
// breaks a rule refuses the copy with the Harvest's reasons, and reading stops at the byte bound (a
// sparse file cannot make it endless).

import { lstat, mkdir, open, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import tar, { type Header } from "tar-stream";
import type { HarvestRefusal, HarvestRefusalReason } from "../plan/index.js";
import { printableName } from "./harvest/index.js";

/** What a tmpfs charges a file's data in: whole pages. */
const PAGE_BYTES = 4096;
/** The owner's read and execute bits: a directory without both cannot be harvested on disk. */
const OWNER_LIST_ENTER = 0o500;

export type ArchiveCopyLimits = {
  /** Bytes of file data the archive may hold (the volume's size): past it reading stops. */
  readonly maxBytes: number;
  /** Files and directories below the root (the volume's inodes). */
  readonly maxEntries: number;
  /** Directory levels below the root. */
  readonly maxDepth: number;
  /** How refusals name the volume's place in the Run ("work/", "the session store"); default "out/". */
  readonly place?: string;
  /**
   * Symbolic links are copied as links (never followed, nothing written through one), as a writable
   * work/ holds its staged links; the change set then judges them as on the root path. Default: refused.
   */
  readonly links?: boolean;
  /**
   * Which directories (relative to the place) the Harvest later judges on disk: one of them whose
   * owner cannot list and enter it (no 0500 in its mode) is refused as `unreadable`, as harvest()
   * refuses it, since a directory copied back is made 0755. Default: every one (out/, a session
   * store); a writable work/ passes only its out/, the rest being judged by the change set, which takes them.
   */
  readonly harvested?: (relative: string) => boolean;
};

export type ArchiveCopy = {
  readonly files: number;
  readonly directories: number;
  readonly bytes: number;
  /** File data in whole pages, as a tmpfs counts what fills it. */
  readonly usedBytes: number;
  /** Files and directories below the root. */
  readonly entries: number;
  /** The first entry that broke a rule; nothing after it was written. */
  readonly refusal?: HarvestRefusal;
};

class Refused extends Error {
  constructor(readonly refusal: HarvestRefusal) {
    super(refusal.message);
  }
}

function refuse(reason: HarvestRefusalReason, name: string, what: string): never {
  const entry = printableName(Buffer.from(name));
  throw new Refused({ reason, entry, message: `${entry} ${what}` });
}

type Entry = AsyncIterable<Buffer> & { readonly header: Header; resume(): unknown };

/**
 * Reads `archive` (its first entry the root directory itself) and, when `destination` is given,
 * writes its files and directories below that existing directory. Resolves with what it held, or a
 * refusal; rejects only when the archive or the disk fails. On a refusal the caller removes what
 * was written.
 */
export async function copyFromArchive(archive: Readable, destination: string | undefined, limits: ArchiveCopyLimits): Promise<ArchiveCopy> {
  const extract = tar.extract();
  archive.on("error", (error: Error) => extract.destroy(error));
  archive.pipe(extract as unknown as NodeJS.WritableStream);
  const made = new Set<string>();
  let files = 0;
  let bytes = 0;
  let usedBytes = 0;
  let entries = 0;
  let root: string | undefined;
  const counted = () => ({ files, directories: made.size, bytes, usedBytes, entries });
  const place = limits.place ?? "out/";
  try {
    for await (const entry of extract as AsyncIterable<Entry>) {
      const { header } = entry;
      const all = header.name.split("/").filter((part) => part !== "" && part !== ".");
      if (root === undefined) {
        // The archive's root: the volume's directory, as the engine names it.
        if (header.type !== "directory" || all.length !== 1)
          refuse("bad_name", header.name, `is not the archive's root directory; the engine's archive of the Run's ${place} is malformed`);
        root = all[0] as string;
        // The place itself, which the Harvest on disk opens and lists as it does a directory in it.
        if (lockedAway(header, "", limits)) refuse("unreadable", ".", unreadableDirectory(header, place));
        entry.resume();
        continue;
      }
      if (header.name.startsWith("/") || all.includes("..") || header.name.includes("\0") || all[0] !== root) {
        refuse("bad_name", header.name, `names a place outside the Run's ${place}; an archive entry must lie below its root`);
      }
      const parts = all.slice(1);
      if (parts.length === 0) refuse("bad_name", header.name, `names the root of ${place} again`);
      // Named as the Harvest on disk names an entry: relative to the place, not to the archive.
      const relative = parts.join("/");
      // The engine writes a name that is not UTF-8 as its bytes in a PAX record, which reaches us decoded, its bad bytes
      // replaced: refused rather than copied back under a name (or a link to a target) the agent did not write.
      if (header.name.includes("\uFFFD") || header.linkname?.includes("\uFFFD") === true)
        refuse("bad_name", relative, "is not UTF-8, and the engine's archive cannot carry its name intact; have the agent give it a UTF-8 name");
      entries += 1;
      if (entries > limits.maxEntries)
        refuse(
          "too_many_entries",
          relative,
          `takes ${place} past ${limits.maxEntries} files and directories${place === "out/" ? " (MAX_WRITABLE_ENTRIES)" : ""}; have the agent write fewer`,
        );
      const mode = header.mode ?? 0o644;
      if ((mode & 0o7000) !== 0)
        refuse("special_mode", relative, `has the setuid, setgid or sticky bit (mode ${mode.toString(8)}); only plain modes are copied back`);
      switch (header.type) {
        case "directory":
          if (lockedAway(header, relative, limits)) refuse("unreadable", relative, unreadableDirectory(header, place));
          if (parts.length > limits.maxDepth)
            refuse(
              "too_deep",
              relative,
              `is ${parts.length} directories deep, past ${limits.maxDepth} (MAX_INPUT_DEPTH); have the agent write a shallower tree`,
            );
          if (destination !== undefined) await makeDirectories(destination, parts, relative, made);
          else made.add(parts.join("/"));
          entry.resume();
          continue;
        case "file": {
          if (parts.length - 1 > limits.maxDepth)
            refuse(
              "too_deep",
              relative,
              `lies ${parts.length - 1} directories deep, past ${limits.maxDepth} (MAX_INPUT_DEPTH); have the agent write a shallower tree`,
            );
          const size = header.size ?? 0;
          // More data than the volume could hold is a sparse file: refused before it is read. One file
          // alone past it is too large a file, as the Harvest on disk says of it (its own per-file bound is lower).
          if (size > limits.maxBytes)
            refuse(
              "file_too_large",
              relative,
              `is ${size} bytes, more than the ${limits.maxBytes} bytes ${place}'s volume holds (a sparse file); have the agent write a smaller file`,
            );
          if (bytes + size > limits.maxBytes)
            refuse(
              "total_too_large",
              relative,
              `takes ${place} past ${limits.maxBytes} bytes, more than its volume holds (a sparse file); have the agent write less`,
            );
          bytes += size;
          usedBytes += Math.ceil(size / PAGE_BYTES) * PAGE_BYTES;
          files += 1;
          if (destination === undefined) {
            entry.resume();
            continue;
          }
          await makeDirectories(destination, parts.slice(0, -1), relative, made);
          await writeNewFile(join(destination, ...parts), relative, entry, mode & 0o777);
          continue;
        }
        case "symlink":
          if (limits.links === true && destination !== undefined) {
            if (parts.length - 1 > limits.maxDepth)
              refuse(
                "too_deep",
                relative,
                `lies ${parts.length - 1} directories deep, past ${limits.maxDepth} (MAX_INPUT_DEPTH); have the agent write a shallower tree`,
              );
            await makeDirectories(destination, parts.slice(0, -1), relative, made);
            await symlink(header.linkname ?? "", join(destination, ...parts)).catch((error: unknown) => {
              if ((error as NodeJS.ErrnoException).code === "EEXIST") refuse("bad_name", relative, "is in the archive twice");
              throw error;
            });
            entry.resume();
            continue;
          }
          if (limits.links === true) {
            entry.resume();
            continue;
          }
          return refuse("symlink", relative, "is a symbolic link; only regular files and directories are copied back: have the agent write the file itself");
        case "link":
          return refuse("hardlink", relative, "is a hard link; only regular files and directories are copied back: have the agent write the file itself");
        default:
          return refuse("special_file", relative, `is a ${String(header.type)}; only regular files and directories are copied back`);
      }
    }
  } catch (error) {
    archive.unpipe(extract as unknown as NodeJS.WritableStream);
    archive.destroy();
    if (error instanceof Refused) return { ...counted(), refusal: error.refusal };
    throw error;
  }
  return counted();
}

/** Whether a directory entry is one its owner cannot list and enter, where the Harvest judges it. */
function lockedAway(header: Header, relative: string, limits: ArchiveCopyLimits): boolean {
  return ((header.mode ?? 0o755) & OWNER_LIST_ENTER) !== OWNER_LIST_ENTER && (limits.harvested?.(relative) ?? true);
}

function unreadableDirectory(header: Header, place: string): string {
  return `is not readable by its owner (mode 0${((header.mode ?? 0) & 0o7777).toString(8)}); give it owner read permission (0755 for a directory) or leave it out of ${place}`;
}

async function makeDirectories(root: string, parts: readonly string[], name: string, made: Set<string>): Promise<void> {
  for (let i = 1; i <= parts.length; i++) {
    const relative = parts.slice(0, i).join("/");
    if (made.has(relative)) continue;
    const path = join(root, relative);
    try {
      await mkdir(path, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // Only this copy writes here, so what exists is a file an earlier entry made.
      if (!(await lstat(path)).isDirectory()) refuse("bad_name", name, `lies under ${printableName(Buffer.from(relative))}, which the archive made a file`);
    }
    made.add(relative);
  }
}

/** Writes a file that must not exist yet (a name twice in the archive is refused), never through a link. */
async function writeNewFile(path: string, name: string, data: AsyncIterable<Buffer>, mode: number): Promise<void> {
  let handle;
  try {
    handle = await open(path, "wx", mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") refuse("bad_name", name, "is in the archive twice");
    throw error;
  }
  try {
    for await (const chunk of data) await handle.write(chunk);
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}
