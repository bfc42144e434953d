// What every Run of one runtime shares, made once at construction: the Run Backend (chosen with the
// options), the logger, the declaration's secrets and their masker, the concurrency limiter, the
// runtime's session, how a Run's ownership is written, and the sweep (run once by itself, before the first Run).
// Invariant: nothing here is per Run; a Run's own secrets, masker and deadline are made with the Run.

import pLimit, { type LimitFunction } from "p-limit";
import { pino, type Logger } from "pino";
import { DEFAULT_OWNER, DEFAULT_STOP_GRACE_SECONDS, DEFAULT_TIMEOUT_SECONDS, type ValidatedContainer } from "../container/index.js";
import type { ReaderVerdict, RunPlanFunction } from "../plan/index.js";
import { scaledMs } from "../liveness/index.js";
import { createMasker, type Masker } from "../redact/index.js";
import { ENGINE_ANSWER_MARGIN_MS, ENGINE_CLEANUP_TIMEOUT_MS } from "./limits.js";
import { RunRequestError } from "./misuse.js";
import { newRuntimeSessionId, thisProcess, type Ownership } from "./ownership/index.js";
import { createPool, DEFAULT_POOL_IDLE_SECONDS, type Pool } from "./pool/index.js";
import { declaredSecrets } from "./run/index.js";
import type { RunFiles, WriteBound } from "./run/index.js";
import type { RunAddresses } from "./network/index.js";
import { createDegradations, type Degradations } from "./degradations.js";
import { reportingClashes, unusableRangeReport } from "./network/index.js";
import type { CheckedRuntimeOptions, RuntimeOptions } from "./runtime-options.js";
import { bounded } from "./stop.js";
import type { SweepResult } from "./ownership/index.js";
import type { BackendScope, RunBackend } from "./run-backend.js";

export type RuntimeShared<R extends ReaderVerdict, Q> = {
  readonly container: ValidatedContainer;
  readonly planFunction: RunPlanFunction<R, Q>;
  /** Where the Runs' containers live: one engine, several, or a cluster; every Run is placed and launched by it. */
  readonly backend: RunBackend;
  /** What the backend's calls need of this runtime. */
  readonly scope: BackendScope;
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
};

/** A member's launcher outlives its idle time by this much: the pool replaces it first, while this process lives. */
const LAUNCHER_IDLE_MARGIN_SECONDS = 30;

export function createRuntimeShared<R extends ReaderVerdict, Q>(options: RuntimeOptions<R, Q>, checked: CheckedRuntimeOptions): RuntimeShared<R, Q> {
  const { container } = checked;
  const logger: Logger = container.logger ?? pino({ level: "silent" });
  const declared = declaredSecrets(container);
  const declaredMasker = createMasker(declared);
  const { backend } = checked;
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
  const degradations = options.degradations ?? createDegradations(logger);
  const addresses = reportingClashes(checked.addresses, degradations);
  const scope: BackendScope = { container, owner, session, logger, masker: declaredMasker, degradations };
  const sweep = (...extra: never[]): Promise<SweepResult> =>
    extra.length > 0 ? Promise.reject(new RunRequestError(`sweep takes no arguments; ${extra.length} were given`)) : backend.sweep(scope);
  backend.watch(scope);
  logger.debug({ backend: backend.description }, "the runtime's Runs go to its backend");
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
            engine: backend.engine,
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
    container,
    planFunction: options.run,
    backend,
    scope,
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
