// The harvest step: once the container is gone (nothing can change out/ any more), a completed
// Run's out/ (or all of work/) is copied to the caller's destination under the Harvest's rules.
// A refusal ends an otherwise completed Run as `harvest_refused`; the deadline stops it too.

import type { HarvestResult, Outcome, ReaderVerdict } from "../plan/index.js";
import type { Masker } from "../redact/index.js";
import { harvest, type RunDirectory } from "../staging/index.js";
import type { RunStop } from "./stop.js";

export async function harvestRun<R extends ReaderVerdict>(
  outcome: Outcome<R>,
  directory: RunDirectory,
  destination: string,
  options: { readonly writableWork: boolean; readonly stop: RunStop; readonly masker: Masker },
): Promise<Outcome<R>> {
  const { stop, masker } = options;
  if (outcome.reason !== "completed") return outcome;
  const harvested = await harvest(options.writableWork ? directory.work : directory.out, destination, { signal: stop.signal }).catch(
    (error: unknown): HarvestResult => ({
      ok: false,
      refusal: { reason: "io_error", entry: ".", message: `the Harvest failed: ${error instanceof Error ? error.message : String(error)}` },
    }),
  );
  if (harvested.ok) return { ...outcome, harvest: harvested };
  const interruption = stop.interruption();
  const reason = interruption?.why ?? "harvest_refused";
  return { ...outcome, ok: false, reason, error: masker.mask(harvested.refusal.message), harvest: masker.maskDeep(harvested) };
}
