// What lstat and fstat decide about one entry: which kinds pass (plain regular files and
// directories their owner can read, no setuid/setgid/sticky bit, no hard link), and whether an
// entry is still the one seen before. Invariant: these checks read only the fields of Observed, so
// a stat made here and one the listing's worker made are judged alike.

import { constants, type BigIntStats } from "node:fs";
import { lstat } from "node:fs/promises";
import type { HarvestRefusal } from "../../plan/index.js";
import type { Observed } from "./listing.js";
import { entryText, errorCode, refusal } from "./refusals.js";

const SPECIAL_MODE_BITS = 0o7000n;
const TYPE_BITS = BigInt(constants.S_IFMT);
export const TYPE = {
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
/** What open() says of a name that is no longer the directory or file lstat saw there. */
export const REPLACED_CODES = new Set(["ELOOP", "ENOENT", "ENOTDIR", "ENXIO"]);

export function isType(stats: Observed, type: bigint): boolean {
  return (stats.mode & TYPE_BITS) === type;
}

/** What lstat alone decides: only plain regular files and directories the owner can read pass. */
export function checkKind(stats: Observed, relative: Buffer): HarvestRefusal | undefined {
  // Checked first and worded only on a refusal: every entry of every harvest passes through here.
  if (isPlain(stats)) return undefined;
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

function isPlain(stats: Observed): boolean {
  const file = isType(stats, TYPE.file);
  if (!file && !isType(stats, TYPE.directory)) return false;
  if ((stats.mode & SPECIAL_MODE_BITS) !== 0n || (file && stats.nlink > 1n)) return false;
  const readable = file ? OWNER_READ : OWNER_READ | OWNER_EXECUTE;
  return (stats.mode & readable) === readable;
}

function specialKind(stats: Observed): string {
  if (isType(stats, TYPE.fifo)) return "FIFO";
  if (isType(stats, TYPE.socket)) return "socket";
  if (isType(stats, TYPE.characterDevice)) return "character device";
  if (isType(stats, TYPE.blockDevice)) return "block device";
  return "special file";
}

/**
 * How `after` differs from `before` for the same path: another inode, another size, or other
 * modification or change times (a write, a rename in or out, a chmod); undefined when it does not.
 */
export function stateDifference(before: Observed, after: Observed): string | undefined {
  if (before.dev !== after.dev || before.ino !== after.ino) return "it was replaced by another file or directory";
  if (before.size !== after.size) return `its size went from ${before.size} to ${after.size} bytes`;
  if (before.mtimeNs !== after.mtimeNs || before.ctimeNs !== after.ctimeNs) return "it was modified";
  return undefined;
}

/** The fields of a stat the checks read, as a plain object that crosses to a worker. */
export function observed(stats: Observed): Observed {
  return { dev: stats.dev, ino: stats.ino, mode: stats.mode, nlink: stats.nlink, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs };
}

export async function lstatOrMissing(target: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(target, { bigint: true });
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
}
