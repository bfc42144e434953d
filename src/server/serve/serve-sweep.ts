// What serve sweeps, and when: at start, after the Runs are recovered (a Run still queued from
// before holds the session store it will resume, so the sweep leaves that store), then every
// sweep interval. The Run directories, containers and session stores past their retention go
// through the runner's sweep; ended Runs' records past --run-retention-days go as DELETE removes them.

import type { Logger } from "pino";
import { DAY_MS } from "../../container/index.js";
import type { AgentRunner } from "../../runner/index.js";
import { startPeriodicSweep, type PeriodicSweep } from "./periodic-sweep.js";
import type { RunService } from "../runs/index.js";

export type ServiceSweepOptions = {
  readonly service: RunService;
  readonly runner: AgentRunner;
  /** Whole days an ended Run's record is kept; undefined: until a DELETE. */
  readonly runRetentionDays: number | undefined;
  readonly intervalMs: number;
  readonly logger: Logger;
};

/** Recovers the Runs, sweeps once, and starts the periodic sweep; its stop() ends it. */
export async function recoverThenSweep(options: ServiceSweepOptions): Promise<PeriodicSweep> {
  const { service, runner, logger } = options;
  // Recovered first: a Run still queued from before holds the session store it will resume, so the
  // sweep of what a crashed predecessor left (and of stores past their retention) leaves that store.
  await service.recover();
  await runner.sweep();
  const sweepRecords = () => sweepEndedRecords(service, options.runRetentionDays, logger);
  // A record that cannot be removed now must not keep the service from starting: the next sweep tries again.
  await sweepRecords().catch((error: unknown) =>
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, "the sweep of ended Runs' records failed"),
  );
  // Then every hour: a service that runs for months must not keep every session, kept Run and record it ever made.
  return startPeriodicSweep(
    // The records are swept even when the engine does not answer the Run directories' sweep.
    () => runner.sweep().finally(sweepRecords),
    options.intervalMs,
    logger,
  );
}

async function sweepEndedRecords(service: RunService, runRetentionDays: number | undefined, logger: Logger): Promise<void> {
  if (runRetentionDays === undefined) return;
  for (const record of await service.removeEndedBefore(Date.now() - runRetentionDays * DAY_MS)) {
    logger.info({ runId: record.id, endedAt: record.endedAt, runRetentionDays }, "sweep removed an ended Run's record and artifacts past their retention");
  }
}
