// Harvest: the one place that decides what of the agent's out/ reaches the caller, and how: the
// arguments checked (arguments.ts), an interrupted harvest recovered (recover.ts), the destination
// checked (destination.ts), the source pinned (source.ts), walked and copied into a hidden sibling
// (walk.ts, copy.ts), then installed. Invariant: all or nothing; a refusal leaves the destination
// as it was, and the sibling is removed unless it was installed.

import { chmod } from "node:fs/promises";
import type { HarvestResult } from "../../plan/index.js";
import { checkArguments, checkResolvedOverlap, type CheckedPaths, type HarvestLimits, type HarvestOptions } from "./arguments.js";
import { checkDestination, install, makeTemporary, removeQuietly, siblingPath } from "./destination.js";
import { claimSibling, recoverSiblings } from "./recover.js";
import { EMPTY, ioError, refusal, refused } from "./refusals.js";
import { openSource, type PinnedDirectory } from "./source.js";
import { walkSource } from "./walk.js";

const DIRECTORY_MODE = 0o755;

/**
 * Copies the regular files and directories under `source` to `destination`, or refuses the whole
 * harvest. Run it only once nothing writes to `source` any more (after the container is gone): a
 * file or directory that changes while it is harvested refuses it (`changed_during_harvest`).
 * Recovers first what an interrupted harvest to the same destination left (see recoverHarvest).
 * Resolves with a refusal, never throws, for anything found on disk; throws HarvestArgumentError only for
 * arguments that cannot mean anything (relative paths, overlapping paths, bad limits).
 */
export async function harvest(source: string, destination: string, options: HarvestOptions = {}, ...extra: never[]): Promise<HarvestResult> {
  const { paths, limits, signal, replace } = checkArguments(source, destination, options, extra);
  const overlapRefusal = await checkResolvedOverlap(paths, source, destination);
  if (overlapRefusal !== undefined) return refused(overlapRefusal);
  try {
    return await harvestChecked(paths, limits, signal, replace);
  } catch (error) {
    return refused(ioError(EMPTY, "harvest", error));
  }
}

async function harvestChecked(paths: CheckedPaths, limits: HarvestLimits, signal: AbortSignal | undefined, replace: boolean): Promise<HarvestResult> {
  const recovery = await recoverSiblings(paths.parent, paths.base);
  if (!recovery.ok) return refused(refusal("io_error", EMPTY, recovery.message));
  const destinationRefusal = await checkDestination(paths, replace);
  if (destinationRefusal !== undefined) return refused(destinationRefusal);
  const root = await openSource(paths.source);
  if ("reason" in root) return refused(root);
  const temporary = siblingPath(paths, "harvest");
  const release = claimSibling(temporary);
  try {
    return await harvestInto(paths, temporary, root, limits, signal);
  } finally {
    release();
  }
}

/** Walks the pinned source `root` into `temporary` and installs it; always closes `root` and removes `temporary` unless installed. */
async function harvestInto(
  paths: CheckedPaths,
  temporary: string,
  root: PinnedDirectory,
  limits: HarvestLimits,
  signal: AbortSignal | undefined,
): Promise<HarvestResult> {
  const madeRefusal = await makeTemporary(temporary);
  if (madeRefusal !== undefined) {
    await root.handle.close().catch(() => undefined);
    return refused(madeRefusal);
  }
  let installed = false;
  try {
    const walked = await walkSource(root, temporary, limits, signal);
    if ("reason" in walked) return refused(walked);
    await chmod(temporary, DIRECTORY_MODE);
    const installRefusal = await install(paths, temporary);
    if (installRefusal !== undefined) return refused(installRefusal);
    installed = true;
    return { ok: true, files: walked.files, directories: walked.directories, bytes: walked.bytes };
  } finally {
    await root.handle.close().catch(() => undefined);
    if (!installed) await removeQuietly(temporary);
  }
}
