// The sweep: removes this owner's containers and Run directories that no live Run of this process
// will finish (what a crashed process left). Labels on the container and run.json on disk are
// the source of truth for who owns what; a live Run of this process is never touched.

import type { Logger } from "pino";
import { OWNER_LABEL, RUN_LABEL, type ValidatedContainer } from "../container/index.js";
import { engineMessage, type Engine } from "../engine/index.js";
import type { Masker } from "../redact/index.js";
import { sweepRunDirectories } from "../staging/index.js";
import { liveRuns } from "./live-runs.js";

export type SweepResult = {
  /** Container ids removed. */
  readonly removed: readonly string[];
  /** Run ids whose directories were removed from the Staging Directory. */
  readonly removedRunDirectories: readonly string[];
};

/** `masker` hides the declaration's secrets in what the sweep logs. */
export async function sweep(container: ValidatedContainer, owner: string, engine: Engine, logger: Logger, masker: Masker): Promise<SweepResult> {
  const removed: string[] = [];
  for (const listed of await engine.listByLabel(`${OWNER_LABEL}=${owner}`)) {
    if (liveRuns.has(listed.labels[RUN_LABEL] ?? "")) continue;
    try {
      await engine.remove(listed.id);
      removed.push(listed.id);
    } catch (error) {
      logger.warn({ container: listed.id, err: masker.mask(engineMessage(error)) }, "sweep could not remove a container");
    }
  }
  const staging = container.staging;
  const removedRunDirectories =
    staging === undefined
      ? []
      : await sweepRunDirectories({
          runtimeDir: staging.runtimeDir,
          owner,
          keepRuns: staging.keepRuns ?? false,
          isLive: liveRuns.has,
          onError: (runId, error) => logger.warn({ runId, err: masker.mask(String(error)) }, "sweep could not remove a Run directory"),
        });
  if (removed.length + removedRunDirectories.length > 0) {
    logger.info({ owner, removed: removed.length, removedRunDirectories: removedRunDirectories.length }, "swept what earlier Runs left");
  }
  return { removed, removedRunDirectories };
}
