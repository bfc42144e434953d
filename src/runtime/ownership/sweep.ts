// The sweep: removes this owner's containers (agents, volume holders), Runs' own networks and
// volumes (out/, work/, session stores), and Run directories that nothing will finish (what a
// crashed process left), kept Run directories past keptRunRetentionDays, and session stores unused
// for longer than sessionRetentionDays. Labels and run.json say who owns what and until when; ownership.ts decides
// what is orphaned. A live Run of a live process is never touched, nor a store a Run is resuming.

import type { Logger } from "pino";
import {
  DAY_MS,
  DEFAULT_KEPT_RUN_RETENTION_DAYS,
  DEFAULT_SESSION_RETENTION_DAYS,
  OWNER_LABEL,
  RUN_LABEL,
  type ValidatedContainer,
} from "../../container/index.js";
import { engineMessage, type Engine } from "../../engine/index.js";
import type { Masker } from "../../redact/index.js";
import { sweepRunDirectories, sweepSessionStores, type SweptSessionStore } from "../../staging/index.js";
import { liveRuns, liveSessionStores } from "../live-runs.js";
import { runNetworkName } from "../network/index.js";
import { RUN_VOLUME_KINDS, runVolumeName } from "../volumes/index.js";
import { orphanedBecause, ownershipFromLabels, thisProcess, type Ownership } from "./ownership.js";

/** What a sweep removed that a crashed process left: containers, Run directories, networks, volumes, session stores. */
export type SweepResult = {
  /** Container ids removed. */
  readonly removed: readonly string[];
  /** Run ids whose directories were removed from the Staging Directory. */
  readonly removedRunDirectories: readonly string[];
  /** Names of the Runs' own networks removed. */
  readonly removedNetworks: readonly string[];
  /** Session stores removed from the Staging Directory: unused for longer than staging.sessionRetentionDays. */
  readonly removedSessionStores: readonly SweptSessionStore[];
  /** Names of the Runs' own volumes removed (out/, work/, session stores: out-volume.ts). */
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
  // After the containers (a holder keeps its volumes in use): only a Run's own volume, named for its Run and a kind.
  const ownVolume = (name: string, runId: string | undefined) => runId !== undefined && RUN_VOLUME_KINDS.some((kind) => name === runVolumeName(kind, runId));
  const removedVolumes = await removeOrphans(
    (await engine.listVolumesByLabel(`${OWNER_LABEL}=${owner}`))
      .filter((v) => ownVolume(v.name, v.labels[RUN_LABEL]))
      .map((v) => ({ name: v.name, runId: v.labels[RUN_LABEL] ?? "", labels: v.labels })),
    { field: "volume", words: "Run's volume" },
    orphaned,
    engine.removeVolume,
    request,
  );
  const staging = request.container.staging;
  const keepRuns = staging?.keepRuns ?? false;
  const removedRunDirectories =
    staging === undefined
      ? []
      : await sweepRunDirectories({
          runtimeDir: staging.runtimeDir,
          owner,
          keepRuns,
          keptRunRetentionMs: (staging.keptRunRetentionDays ?? DEFAULT_KEPT_RUN_RETENTION_DAYS) * DAY_MS,
          isOrphaned: (info) => orphanedBecause(info.runId, (info.ownership ?? {}) as Partial<Ownership>, context) !== undefined,
          now: context.now,
          onError: (runId, error) => logger.warn({ runId, err: masker.mask(String(error)) }, "sweep could not remove a Run directory"),
        });
  for (const runId of removedRunDirectories) logger.info({ runId, keepRuns }, "sweep removed a Run directory");
  const sessionRetentionDays = staging?.sessionRetentionDays ?? DEFAULT_SESSION_RETENTION_DAYS;
  const removedSessionStores =
    staging === undefined
      ? []
      : await sweepSessionStores({
          runtimeDir: staging.runtimeDir,
          retentionMs: sessionRetentionDays * DAY_MS,
          isInUse: (namespace, id) => liveSessionStores.has(staging.runtimeDir, namespace, id),
          now: context.now,
          onError: ({ namespace, id }, error) =>
            logger.warn({ namespace, sessionId: id, err: masker.mask(String(error)) }, "sweep could not remove a session store"),
        });
  for (const { namespace, id, lastUsedAt } of removedSessionStores) {
    logger.info({ namespace, sessionId: id, lastUsedAt, sessionRetentionDays }, "sweep removed a session store past its retention");
  }
  const total = removed.length + removedRunDirectories.length + removedNetworks.length + removedVolumes.length + removedSessionStores.length;
  if (total > 0) {
    logger.info(
      {
        owner,
        removed: removed.length,
        removedRunDirectories: removedRunDirectories.length,
        removedNetworks: removedNetworks.length,
        removedVolumes: removedVolumes.length,
        removedSessionStores: removedSessionStores.length,
      },
      "swept what earlier Runs left",
    );
  }
  return { removed, removedRunDirectories, removedNetworks, removedVolumes, removedSessionStores };
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
