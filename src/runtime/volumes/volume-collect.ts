// What a place of the Run (out/, a writable work/, a session store) held, copied back onto this
// host's disk from an archive of it, however the archive came (an engine's volume, a Pod's holder
// over exec). Invariant: the Harvest's rules travel with the files: the same limits and
// refusals whatever the source, and nothing half-copied is left: a refusal leaves the place as staging made it.

import { mkdir, rename } from "node:fs/promises";
import type { Readable } from "node:stream";
import { OUT_NAME, type HarvestRefusal } from "../../plan/index.js";
import { carryManifest, copyFromArchive, removeTree, stagingLimits, type Manifest } from "../../staging/index.js";

const { FULL_BELOW_BYTES, FULL_BELOW_INODES, MAX_INPUT_DEPTH, MAX_SESSION_STORE_DEPTH } = stagingLimits;

/**
 * Which place of the Run a volume is: its out/, its whole writable work/, its session store's working
 * copy, or (runFiles "engine") its read-only work/ with the inputs, which the agent only reads and is never read back.
 */
export type RunVolumeKind = "out" | "work" | "session" | "inputs";

/** How refusals of each kind's copy-back name it. */
export const PLACE: Record<RunVolumeKind, string> = { out: "out/", work: "work/", session: "the session store", inputs: "inputs" };

export type CollectedVolume = {
  /** The agent filled what it may write there (its writes past it failed). */
  readonly full: boolean;
  /** An entry copy-back refused; the place on disk is then left as staging left it. */
  readonly refusal?: HarvestRefusal;
  /** With a manifest given: the manifest of the copied-back work/ (carryManifest). */
  readonly manifest?: Manifest;
};

/** The place's size: the bytes and inodes it had, which bound what is copied back. */
export type PlaceBounds = { readonly bytes: number; readonly inodes: number };

/**
 * Reads `archive` (the place's root directory its first entry), copying it into `destination` when
 * given: into the empty out/, or in place of a work/ or session store (a fresh copy swapped in whole,
 * nothing on a refusal). `confirm`, when given, is asked once the archive was read whole and before
 * anything is swapped in: a sentence there (the archive's source failed after all) refuses the copy as io_error.
 */
export async function copyBackArchive(
  archive: Readable,
  kind: RunVolumeKind,
  bounds: PlaceBounds,
  destination: string | undefined,
  manifest?: Manifest,
  confirm?: () => Promise<string | undefined>,
): Promise<CollectedVolume> {
  const limits = {
    maxBytes: bounds.bytes,
    maxEntries: bounds.inodes - 1,
    maxDepth: kind === "session" ? MAX_SESSION_STORE_DEPTH : MAX_INPUT_DEPTH,
    place: PLACE[kind],
    links: kind === "work",
    // A writable work/ holds the agent's out/, which is harvested; the rest is the change set's to judge.
    ...(kind === "work" ? { harvested: (relative: string) => relative === OUT_NAME || relative.startsWith(`${OUT_NAME}/`) } : {}),
  };
  // out/ is empty on disk: copied into. A work/ or a store holds what was staged: a fresh copy replaces it whole.
  const into = destination === undefined || kind === "out" ? destination : `${destination}.volume`;
  if (into !== destination && into !== undefined) await mkdir(into, { mode: 0o755 });
  let copy;
  try {
    copy = await copyFromArchive(archive, into, limits);
  } catch (error) {
    // Nothing half-copied, as on a refusal: a fresh copy goes, out/ is left empty as staging made it.
    await undo(into, destination);
    throw error;
  }
  const failed = copy.refusal === undefined && confirm !== undefined ? await confirm() : undefined;
  const refusal: HarvestRefusal | undefined =
    copy.refusal ?? (failed === undefined ? undefined : { reason: "io_error", entry: ".", message: `${PLACE[kind]} could not be read back whole: ${failed}` });
  let carried: Manifest | undefined;
  if (refusal !== undefined) await undo(into, destination);
  else if (into !== undefined && destination !== undefined && into !== destination) {
    if (manifest !== undefined) carried = await carryManifest(manifest, destination, into);
    await removeTree(destination);
    await rename(into, destination);
  }
  // A refused copy stopped early: what was counted is a lower bound, so only a full count says full.
  const full = copy.usedBytes + FULL_BELOW_BYTES > bounds.bytes || copy.entries + 1 + FULL_BELOW_INODES > bounds.inodes;
  return { full, ...(refusal === undefined ? {} : { refusal }), ...(carried === undefined ? {} : { manifest: carried }) };
}

/** The place left as staging made it: a fresh copy removed, or out/ emptied. */
async function undo(into: string | undefined, destination: string | undefined): Promise<void> {
  if (into === undefined) return;
  if (into !== destination) {
    await removeTree(into);
    return;
  }
  await removeTree(into);
  await mkdir(into, { mode: 0o755 });
}
