// The destination: what is refused before any work (a missing parent, a link, a file, a directory
// that holds anything unless replace was asked for), the hidden sibling the tree is built in, and
// the install. Invariant: the destination changes only by renaming a fully built sibling onto it,
// so a refusal leaves it as it was, and nothing is deleted that the caller did not ask to replace.

import type { BigIntStats } from "node:fs";
import { mkdir, opendir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { HarvestRefusal } from "../../plan/index.js";
import type { CheckedPaths } from "./arguments.js";
import { claimSibling, siblingName, type SiblingPurpose } from "./recover.js";
import { EMPTY, errorCode, ioError, printablePath, refusal } from "./refusals.js";
import { lstatOrMissing } from "./stat-checks.js";

/** Refuses a destination that is a link or not a directory, and a missing parent, before any work. */
export async function checkDestination(paths: CheckedPaths, replace: boolean): Promise<HarvestRefusal | undefined> {
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

/** `.<basename>.<purpose>-<16 hex>` in the destination's parent (a long basename cut and hashed, see siblingName). */
export function siblingPath(paths: CheckedPaths, purpose: SiblingPurpose): string {
  return path.join(paths.parent, siblingName(paths.base, purpose));
}

/** Makes the hidden sibling the tree is built in, owner-only (0700) until the walk is done. */
export async function makeTemporary(temporary: string): Promise<HarvestRefusal | undefined> {
  try {
    await mkdir(temporary, { mode: 0o700 });
    return undefined;
  } catch (error) {
    return ioError(EMPTY, "create the temporary directory beside the destination", error);
  }
}

/**
 * Puts the built tree in place: a rename onto a missing destination, or, over an existing
 * directory, set the old one aside, rename the new one in, then remove the old one. Checked again
 * here because the destination may have changed during the walk. A process that dies between the
 * two renames leaves the old tree in its sibling, for recoverSiblings to rename back.
 */
export async function install(paths: CheckedPaths, temporary: string): Promise<HarvestRefusal | undefined> {
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

export async function removeQuietly(target: string): Promise<void> {
  await rm(target, { recursive: true, force: true }).catch(() => undefined);
}
