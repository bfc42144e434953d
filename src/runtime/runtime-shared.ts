// What every Run of one runtime shares, made once at construction: the engine, the logger, the
// declaration's secrets and their masker, the concurrency limiter, the runtime's session, how a
// Run's ownership is written, and the sweep (run once by itself, before the first Run).
// Invariant: nothing here is per Run; a Run's own secrets, masker and deadline are made with the Run.

import pLimit, { type LimitFunction } from "p-limit";
import { pino, type Logger } from "pino";
import { DEFAULT_OWNER, DEFAULT_STOP_GRACE_SECONDS, DEFAULT_TIMEOUT_SECONDS, type ValidatedContainer } from "../container/index.js";
import { createDockerEngine, type Engine } from "../engine/index.js";
import type { ReaderVerdict, RunPlanFunction } from "../plan/index.js";
import { scaledMs } from "../liveness/index.js";
import { createMasker, type Masker } from "../redact/index.js";
import { ENGINE_ANSWER_MARGIN_MS, ENGINE_CLEANUP_TIMEOUT_MS } from "./limits.js";
import { RunRequestError } from "./misuse.js";
import { newRuntimeSessionId, thisProcess, type Ownership } from "./ownership.js";
import { createPool, DEFAULT_POOL_IDLE_SECONDS, type Pool } from "./pool.js";
import { declaredSecrets } from "./run-masker.js";
import type { RunFiles, WriteBound } from "./run-state.js";
import type { RunAddresses } from "./run-addresses.js";
import { createDegradations, type Degradations } from "./degradations.js";
import { reportingClashes, unusableRangeReport } from "./range-clash.js";
import type { CheckedRuntimeOptions, RuntimeOptions } from "./runtime-options.js";
import { bounded } from "./stop.js";
import { sweep as sweepOwner, type SweepResult } from "./sweep.js";
import type { EngineSet } from "./engine-set.js";
import { sweepEngines } from "./sweep-engines.js";
import { sweepCluster } from "./pod-sweep.js";
import type { KubernetesBackend } from "./kube-backend.js";

export type RuntimeShared<R extends ReaderVerdict, Q> = {
  readonly container: ValidatedContainer;
  readonly planFunction: RunPlanFunction<R, Q>;
  /** The one engine; with several (`engineSet`), the first, and each Run gets its own from the set. */
  readonly engine: Engine;
  /** Several engines, when the options gave them: each Run takes a lease on one. */
  readonly engineSet?: EngineSet;
  readonly logger: Logger;
  /** The declaration's secret values; each Run's masker adds its own to them. */
  readonly declared: readonly string[];
  /** Masks what the declaration knows: for what is said before (or outside) a Run's own masker. */
  readonly declaredMasker: Masker;
  /** At most `concurrency` Runs at once; the rest wait in it for a slot. */
  readonly limit: LimitFunction;
  readonly owner: string;
  /** This runtime's session id: on every container and Run directory it makes. */
  readonly session: string;
  readonly graceMs: number;
  readonly writeBound: WriteBound;
  readonly runFiles: RunFiles;
  /** Where each Run's own network takes its subnet; a clash is told to `degradations`. */
  readonly addresses: RunAddresses;
  /** What makes this runtime less than it says now: the options' board, or its own. */
  readonly degradations: Degradations;
  /** A Run starting now: this session's, this process's, over at its timeout plus the grace and the engine's margin. */
  readonly ownershipOf: (timeoutSeconds: number) => Ownership;
  /** Removes what a gone process of this owner left (and what is this session's own and not live). */
  readonly sweep: (...extra: never[]) => Promise<SweepResult>;
  /** The start-up sweep: started by the first Run to have a slot, bounded, never rejecting; the same promise after. */
  readonly sweepAtStartup: () => Promise<unknown>;
  /** The warm pool, when asked for. */
  readonly pool?: Pool;
  /** The Kubernetes backend, when asked for: every Run is a Pod there, and the sweep is by label there. */
  readonly kubernetes?: KubernetesBackend;
};

/** A member's launcher outlives its idle time by this much: the pool replaces it first, while this process lives. */
const LAUNCHER_IDLE_MARGIN_SECONDS = 30;

export function createRuntimeShared<R extends ReaderVerdict, Q>(options: RuntimeOptions<R, Q>, checked: CheckedRuntimeOptions): RuntimeShared<R, Q> {
  const { container } = checked;
  const logger: Logger = container.logger ?? pino({ level: "silent" });
  const declared = declaredSecrets(container);
  const declaredMasker = createMasker(declared);
  const engineSet = options.engines;
  const engine: Engine = engineSet?.engines()[0]?.engine ?? options.engine ?? createDockerEngine(options.docker);
  const limit = pLimit(checked.concurrency);
  const owner = container.owner ?? DEFAULT_OWNER;
  const session = newRuntimeSessionId();
  const me = thisProcess();
  const graceMs = (container.limits?.stopGraceSeconds ?? DEFAULT_STOP_GRACE_SECONDS) * 1000;
  const ownershipOf = (timeoutSeconds: number): Ownership => ({
    session,
    ...me,
    // The Run's own timeout and grace exact; the engine's margin, not a user's, stretched by the load as it is now.
    deadline: String(Date.now() + timeoutSeconds * 1000 + graceMs + scaledMs(ENGINE_ANSWER_MARGIN_MS)),
  });
  const sweepOn = (one: Engine): Promise<SweepResult> => sweepOwner({ container, owner, session, engine: one, logger, masker: declaredMasker });
  const { kubernetes } = checked;
  const sweep = (...extra: never[]): Promise<SweepResult> =>
    extra.length > 0
      ? Promise.reject(new RunRequestError(`sweep takes no arguments; ${extra.length} were given`))
      : kubernetes !== undefined
        ? sweepCluster(kubernetes, owner, session)
        : engineSet === undefined
          ? sweepOn(engine)
          : sweepEngines(engineSet, sweepOn, logger);
  const degradations = options.degradations ?? createDegradations(logger);
  const addresses = reportingClashes(checked.addresses, degradations);
  engineSet?.onDrain((name, why) =>
    degradations.raise({
      kind: "engine",
      subject: name,
      reason: `the engine ${JSON.stringify(name)} stopped answering (${why}): its Runs were ended, and no Run goes there until it answers again`,
      fix: `start the engine ${JSON.stringify(name)} again, or mend the way to it; agentcage doctor --engine checks each one`,
    }),
  );
  // An engine back after it was drained still holds what its ended Runs left: sweep it then.
  engineSet?.onReturn((name, back) => {
    degradations.clear("engine", name);
    logger.info({ engine: name }, "an engine answers again; sweeping what its drained Runs left");
    void bounded(sweepOn(back), ENGINE_CLEANUP_TIMEOUT_MS, "the sweep of an engine back").catch((error: unknown) => {
      logger.warn({ engine: name, err: declaredMasker.mask(error instanceof Error ? error.message : String(error)) }, "the sweep of an engine back failed");
    });
  });
  // A late ping is an engine slow, not gone: said, and its Runs go on.
  engineSet?.onSlow((name, hit) => {
    logger.warn({ engine: name, boundMs: hit.boundMs, waitedMs: hit.waitedMs }, "an engine is slow to answer its ping; its Runs go on");
  });
  let startupSweep: Promise<unknown> | undefined;
  // Bounded: an engine that does not answer must not hold every Run (and its cancel) at the door.
  const sweepAtStartup = (): Promise<unknown> =>
    (startupSweep ??= bounded(sweep(), ENGINE_CLEANUP_TIMEOUT_MS, "the start-up sweep").catch((error: unknown) => {
      logger.warn({ err: declaredMasker.mask(error instanceof Error ? error.message : String(error)) }, "the start-up sweep failed");
    }));
  const { writeBound, runFiles } = checked;
  const pool =
    options.pool === undefined
      ? undefined
      : createPool(
          options.pool,
          {
            container,
            engine,
            owner,
            session,
            addresses,
            // A member may serve a Run of the declared timeout after waiting its whole idle time.
            ownership: () => ownershipOf((options.pool?.maxIdleSeconds ?? DEFAULT_POOL_IDLE_SECONDS) + (container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS)),
            // The pool's own replacement comes first; the margin (not a user's) stretched by the load as each member is made.
            launcherIdleSeconds: () =>
              (options.pool?.maxIdleSeconds ?? DEFAULT_POOL_IDLE_SECONDS) + Math.ceil(scaledMs(LAUNCHER_IDLE_MARGIN_SECONDS * 1000) / 1000),
            ...(options.pool.network === undefined ? {} : { network: options.pool.network }),
            ...(options.pool.headStart === undefined ? {} : { headStart: options.pool.headStart }),
          },
          logger,
          degradations,
        );
  // Members made on networks of the range cannot be made at all: said at once, not at their first failure.
  if (options.pool?.network !== undefined) {
    const clash = unusableRangeReport(addresses);
    if (clash !== undefined) degradations.raise(clash);
  }
  return {
    ...(pool === undefined ? {} : { pool }),
    ...(kubernetes === undefined ? {} : { kubernetes }),
    ...(engineSet === undefined ? {} : { engineSet }),
    container,
    planFunction: options.run,
    engine,
    logger,
    declared,
    declaredMasker,
    limit,
    owner,
    session,
    graceMs,
    writeBound,
    runFiles,
    addresses,
    degradations,
    ownershipOf,
    sweep,
    sweepAtStartup,
  };
}
