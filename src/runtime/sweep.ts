// The sweep: removes this owner's containers (agents, out/ holders), Runs' own networks and out/
// volumes, and Run directories that nothing will finish (what a crashed process left). Labels and
// run.json on disk say who owns what and until when; ownership.ts decides what is orphaned. A live
// Run of a live process is never touched.

import type { Logger } from "pino";
import { OWNER_LABEL, RUN_LABEL, type ValidatedContainer } from "../container/index.js";
import { engineMessage, type Engine } from "../engine/index.js";
import type { Masker } from "../redact/index.js";
import { sweepRunDirectories } from "../staging/index.js";
import { liveRuns } from "./live-runs.js";
import { runNetworkName } from "./run-network.js";
import { outVolumeName } from "./out-volume.js";
import { orphanedBecause, ownershipFromLabels, thisProcess, type Ownership } from "./ownership.js";

export type SweepResult = {
  /** Container ids removed. */
  readonly removed: readonly string[];
  /** Run ids whose directories were removed from the Staging Directory. */
  readonly removedRunDirectories: readonly string[];
  /** Names of the Runs' own networks removed. */
  readonly removedNetworks: readonly string[];
  /** Names of the Runs' own out/ volumes removed (out-volume.ts). */
  readonly removedVolumes: readonly string[];
};

export type SweepRequest = {
  readonly container: ValidatedContainer;
  readonly owner: string;
  readonly session: string;
  readonly engine: Engine;
  readonly logger: Logger;
  /** Hides the declaration's secrets in what the sweep logs. */
  readonly masker: Masker;
};

export async function sweep(request: SweepRequest): Promise<SweepResult> {
  const { engine, logger, masker, owner } = request;
  const context = { session: request.session, me: thisProcess(), isLive: liveRuns.has, now: Date.now() };
  const orphaned = (runId: string, labels: Readonly<Record<string, string>>) => orphanedBecause(runId, ownershipFromLabels(labels), context);
  const removed = await removeOrphans(
    (await engine.listByLabel(`${OWNER_LABEL}=${owner}`)).map((c) => ({ name: c.id, runId: c.labels[RUN_LABEL] ?? "", labels: c.labels })),
    { field: "container", words: "container" },
    orphaned,
    engine.remove,
    request,
  );
  // After the containers: a Run's network outlives its container only when its process died between the two.
  const removedNetworks = await removeOrphans(
    (await engine.listNetworksByLabel(`${OWNER_LABEL}=${owner}`))
      // Only a Run's own network (named for it, labelled with it): never one the Operator made.
      .filter((n) => n.labels[RUN_LABEL] !== undefined && n.name === runNetworkName(n.labels[RUN_LABEL]))
      .map((n) => ({ name: n.name, runId: n.labels[RUN_LABEL] ?? "", labels: n.labels })),
    { field: "network", words: "Run's network" },
    orphaned,
    engine.removeNetwork,
    request,
  );
  // After the containers (a holder keeps its volume in use): only a Run's own out/ volume.
  const removedVolumes = await removeOrphans(
    (await engine.listVolumesByLabel(`${OWNER_LABEL}=${owner}`))
      .filter((v) => v.labels[RUN_LABEL] !== undefined && v.name === outVolumeName(v.labels[RUN_LABEL]))
      .map((v) => ({ name: v.name, runId: v.labels[RUN_LABEL] ?? "", labels: v.labels })),
    { field: "volume", words: "Run's out/ volume" },
    orphaned,
    engine.removeVolume,
    request,
  );
  const staging = request.container.staging;
  const removedRunDirectories =
    staging === undefined
      ? []
      : await sweepRunDirectories({
          runtimeDir: staging.runtimeDir,
          owner,
          keepRuns: staging.keepRuns ?? false,
          isOrphaned: (info) => orphanedBecause(info.runId, (info.ownership ?? {}) as Partial<Ownership>, context) !== undefined,
          onError: (runId, error) => logger.warn({ runId, err: masker.mask(String(error)) }, "sweep could not remove a Run directory"),
        });
  if (removed.length + removedRunDirectories.length + removedNetworks.length + removedVolumes.length > 0) {
    logger.info(
      { owner, removed: removed.length, removedRunDirectories: removedRunDirectories.length, removedNetworks: removedNetworks.length, removedVolumes: removedVolumes.length },
      "swept what earlier Runs left",
    );
  }
  return { removed, removedRunDirectories, removedNetworks, removedVolumes };
}

/** Removes each listed thing that is orphaned, logging why; one that cannot be removed is logged and left to the next sweep. */
async function removeOrphans(
  listed: ReadonlyArray<{ readonly name: string; readonly runId: string; readonly labels: Readonly<Record<string, string>> }>,
  what: { readonly field: "container" | "network" | "volume"; readonly words: string },
  orphaned: (runId: string, labels: Readonly<Record<string, string>>) => string | undefined,
  remove: (name: string) => Promise<void>,
  { logger, masker }: Pick<SweepRequest, "logger" | "masker">,
): Promise<string[]> {
  const removed: string[] = [];
  for (const { name, runId, labels } of listed) {
    const why = orphaned(runId, labels);
    if (why === undefined) continue;
    try {
      await remove(name);
      removed.push(name);
      logger.info({ runId, [what.field]: name, why }, `sweep removed a ${what.words}`);
    } catch (error) {
      logger.warn({ [what.field]: name, err: masker.mask(engineMessage(error)) }, `sweep could not remove a ${what.words}`);
    }
  }
  return removed;
}
