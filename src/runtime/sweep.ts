// The sweep: removes this owner's containers and Run directories that nothing will finish (what a
// crashed process left). Labels on the container and run.json on disk say who owns what and until
// when; ownership.ts decides what is orphaned. A live Run of a live process is never touched.

import type { Logger } from "pino";
import { OWNER_LABEL, RUN_LABEL, type ValidatedContainer } from "../container/index.js";
import { engineMessage, type Engine } from "../engine/index.js";
import type { Masker } from "../redact/index.js";
import { sweepRunDirectories } from "../staging/index.js";
import { liveRuns } from "./live-runs.js";
import { runNetworkName } from "./run-network.js";
import { orphanedBecause, ownershipFromLabels, thisProcess, type Ownership } from "./ownership.js";

export type SweepResult = {
  /** Container ids removed. */
  readonly removed: readonly string[];
  /** Run ids whose directories were removed from the Staging Directory. */
  readonly removedRunDirectories: readonly string[];
  /** Names of the Runs' own networks removed. */
  readonly removedNetworks: readonly string[];
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
  const removed: string[] = [];
  for (const listed of await engine.listByLabel(`${OWNER_LABEL}=${owner}`)) {
    const runId = listed.labels[RUN_LABEL] ?? "";
    const why = orphanedBecause(runId, ownershipFromLabels(listed.labels), context);
    if (why === undefined) continue;
    try {
      await engine.remove(listed.id);
      removed.push(listed.id);
      logger.info({ runId, container: listed.id, why }, "sweep removed a container");
    } catch (error) {
      logger.warn({ container: listed.id, err: masker.mask(engineMessage(error)) }, "sweep could not remove a container");
    }
  }
  // After the containers: a Run's network outlives its container only when its process died between the two.
  const removedNetworks: string[] = [];
  for (const listed of await engine.listNetworksByLabel(`${OWNER_LABEL}=${owner}`)) {
    const runId = listed.labels[RUN_LABEL];
    // Only a Run's own network (named for it, labelled with it): never one the Operator made.
    if (runId === undefined || listed.name !== runNetworkName(runId)) continue;
    const why = orphanedBecause(runId, ownershipFromLabels(listed.labels), context);
    if (why === undefined) continue;
    try {
      await engine.removeNetwork(listed.name);
      removedNetworks.push(listed.name);
      logger.info({ runId, network: listed.name, why }, "sweep removed a Run's network");
    } catch (error) {
      logger.warn({ network: listed.name, err: masker.mask(engineMessage(error)) }, "sweep could not remove a Run's network");
    }
  }
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
  if (removed.length + removedRunDirectories.length + removedNetworks.length > 0) {
    logger.info({ owner, removed: removed.length, removedRunDirectories: removedRunDirectories.length, removedNetworks: removedNetworks.length }, "swept what earlier Runs left");
  }
  return { removed, removedRunDirectories, removedNetworks };
}
