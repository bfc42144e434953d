// The hidden siblings a Harvest works in, and the recovery of what an interrupted install left.
// Invariants: a sibling's name belongs to exactly one destination; recovery touches only real
// directories whose whole name is such a sibling and which no harvest of this process is using, and
// it only ever rolls back: the destination ends up as it was before the interrupted harvest began.

import { createHash, randomBytes } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { lstat, readdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { checkDestinationPath, HarvestArgumentError } from "./arguments.js";
import { errorCode, printablePath } from "./refusals.js";

/** What recoverHarvest() found beside a destination and did about it. */
export type HarvestRecovery =
  | {
      readonly ok: true;
      /** The destination was missing and the tree an interrupted install had set aside was renamed back onto it. */
      readonly restored: boolean;
      /** Leftover siblings removed: half-built or never-installed harvests, and set-aside trees no longer needed. */
      readonly removed: number;
      /** Leftover siblings that could not be removed (permissions, a busy mount); the next recovery tries again. */
      readonly left: number;
    }
  | { readonly ok: false; readonly message: string };

export type SiblingPurpose = "harvest" | "old";

/** A destination's name is kept whole in its siblings' names up to this many bytes; a longer one is cut and hashed. */
const SIBLING_STEM_BYTES = 64;
/** Bytes of a cut name kept before its hash (whole characters only). */
const CUT_STEM_BYTES = 48;
const STEM_HASH_HEX = 16;
const SUFFIX_HEX = 16;

/** Siblings a harvest of this process is building or installing; recovery leaves them alone. */
const inUse = new Set<string>();

/**
 * `.<stem>.<purpose>-<16 hex>` in the destination's parent. The stem is the destination's name when
 * it has at most 64 bytes, else its first 48 bytes of whole characters, `~` and 16 hex of its
 * SHA-256: 65 bytes, so a cut stem never equals a whole one and two long names never share one.
 */
export function siblingName(base: string, purpose: SiblingPurpose): string {
  return `.${siblingStem(base)}.${purpose}-${randomBytes(SUFFIX_HEX / 2).toString("hex")}`;
}

function siblingStem(base: string): string {
  if (Buffer.byteLength(base) <= SIBLING_STEM_BYTES) return base;
  let cut = "";
  for (const character of base) {
    if (Buffer.byteLength(cut + character) > CUT_STEM_BYTES) break;
    cut += character;
  }
  return `${cut}~${createHash("sha256").update(base).digest("hex").slice(0, STEM_HASH_HEX)}`;
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

/** Marks `sibling` as this process's own until the returned release is called. */
export function claimSibling(sibling: string): () => void {
  inUse.add(sibling);
  return () => inUse.delete(sibling);
}

/**
 * An install is two renames: the destination to `.old-`, then `.harvest-` onto the destination. A
 * process that dies between them leaves the destination missing; one that dies during the walk or
 * before removing `.old-` leaves siblings beside a consistent destination. This puts back the earlier
 * tree (the newest `.old-` when there are several) when the destination is missing, and removes the
 * rest, so the interrupted harvest never happened as far as the destination shows.
 */
export async function recoverSiblings(parent: string, base: string): Promise<HarvestRecovery> {
  let names: Buffer[];
  try {
    names = await readdir(parent, { encoding: "buffer" });
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return { ok: true, restored: false, removed: 0, left: 0 };
    return failed(
      `harvest could not list ${printablePath(parent)} to recover an interrupted harvest (${errorCode(error) ?? "error"}); check its permissions, then try again`,
    );
  }
  const pattern = siblingPattern(base);
  const found: Array<{ readonly full: string; readonly purpose: SiblingPurpose; readonly stats: BigIntStats }> = [];
  for (const name of names) {
    const match = pattern.exec(name.toString("latin1"));
    if (match === null) continue;
    const full = path.join(parent, name.toString("utf8"));
    if (inUse.has(full)) continue;
    const stats = await lstat(full, { bigint: true }).catch(() => undefined);
    // Only a real directory can be one a harvest made; anything else of that name is not ours to touch.
    if (stats === undefined || !stats.isDirectory()) continue;
    found.push({ full, purpose: match[1] === "old" ? "old" : "harvest", stats });
  }
  if (found.length === 0) return { ok: true, restored: false, removed: 0, left: 0 };

  const destination = path.join(parent, base);
  let restored = false;
  const olds = found.filter((sibling) => sibling.purpose === "old").sort((a, b) => (a.stats.ctimeNs < b.stats.ctimeNs ? 1 : -1));
  const newest = olds[0];
  let leftover = found;
  let destinationMissing: boolean;
  try {
    destinationMissing = await missing(destination);
  } catch (error) {
    return failed(
      `harvest could not inspect ${printablePath(destination)} to recover an interrupted harvest (${errorCode(error) ?? "error"}); check its parent's permissions, then try again`,
    );
  }
  if (newest !== undefined && destinationMissing) {
    try {
      await rename(newest.full, destination);
    } catch (error) {
      return failed(
        `harvest could not put the tree an interrupted harvest set aside at ${printablePath(newest.full)} back onto ${printablePath(destination)} (${errorCode(error) ?? "error"}); rename it back by hand`,
      );
    }
    restored = true;
    leftover = found.filter((sibling) => sibling !== newest);
  }
  let removed = 0;
  for (const sibling of leftover) {
    const gone = await rm(sibling.full, { recursive: true, force: true }).then(
      () => true,
      () => false,
    );
    if (gone) removed += 1;
  }
  return { ok: true, restored, removed, left: leftover.length - removed };
}

/** The whole name of any sibling of `base`, its purpose captured; matched against names read as latin1 (one character per byte). */
function siblingPattern(base: string): RegExp {
  const stem = Buffer.from(siblingStem(base), "utf8").toString("latin1");
  return new RegExp(`^\\.${escapeRegExp(stem)}\\.(old|harvest)-[0-9a-f]{${SUFFIX_HEX}}$`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

async function missing(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return false;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return true;
    throw error;
  }
}

function failed(message: string): HarvestRecovery {
  return { ok: false, message };
}
