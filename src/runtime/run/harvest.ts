// The harvest step: once the container is gone (nothing can change work/ any more), a completed
// Run's out/ is copied to the caller's destination under the Harvest's rules; with a writable
// work/, only what the agent changed is (files/, changes.patch, changes.json). A refusal ends an
// otherwise completed Run as `harvest_refused`; the Run's deadline and cancel stop it too.

import type { HarvestResult, Outcome, ReaderVerdict } from "../../plan/index.js";
import type { Masker } from "../../redact/index.js";
import { harvest, harvestChanges, type Manifest, type RunDirectory, type RunInputs } from "../../staging/index.js";
import type { RunStop } from "../stop.js";

export type HarvestStep = {
  /** With a writable work/: what was staged, and where the originals can be read again; default: harvest out/. */
  readonly changesSince?: { readonly manifest: Manifest; readonly originals: RunInputs };
  readonly replace: boolean;
  readonly stop: RunStop;
  readonly masker: Masker;
};

export async function harvestRun<R extends ReaderVerdict>(
  outcome: Outcome<R>,
  directory: RunDirectory,
  destination: string,
  step: HarvestStep,
): Promise<Outcome<R>> {
  const { stop, masker } = step;
  if (outcome.reason !== "completed") return outcome;
  const harvested = await copyBack(directory, destination, step).catch(
    (error: unknown): HarvestResult => ({
      ok: false,
      refusal: { reason: "io_error", entry: ".", message: `the Harvest failed: ${error instanceof Error ? error.message : String(error)}` },
    }),
  );
  // Paths the agent chose (file names) are its output too: masked like the rest of it.
  if (harvested.ok) return { ...outcome, harvest: masker.maskDeep(harvested) };
  const interruption = stop.interruption();
  const reason = interruption?.why ?? "harvest_refused";
  return { ...outcome, ok: false, reason, error: masker.mask(harvested.refusal.message), harvest: masker.maskDeep(harvested) };
}

async function copyBack(directory: RunDirectory, destination: string, step: HarvestStep): Promise<HarvestResult> {
  const options = { signal: step.stop.signal, replace: step.replace };
  if (step.changesSince === undefined) return harvest(directory.out, destination, options);
  return harvestChanges(directory.work, step.changesSince, directory.changes, destination, options);
}
