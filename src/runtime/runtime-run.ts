// run(): a call checked, then queued for a slot, then performed, and answered with an Outcome
// whatever happened: a malformed call, a cancel before or while it waits, a defect of our own.
// The store a Run resumes is held from the call until its answer; the Run is live while it has its slot.
// Invariant: run() never rejects, and every answer is logged once as "run ended".

import { DEFAULT_TIMEOUT_SECONDS } from "../container/index.js";
import type { Outcome, ReaderVerdict, RunPrompt } from "../plan/index.js";
import type { Masker } from "../redact/index.js";
import { context } from "@opentelemetry/api";
import { type RunEnd, type RunTrace, startRunTrace } from "../trace/index.js";
import { earlyOutcome } from "./end-reason.js";
import { holdSessionStore, liveRuns } from "./live-runs.js";
import { callerAbort } from "./misuse.js";
import { performRun, type RunContext } from "./run.js";
import { newRunId } from "./run-id.js";
import { runMasker } from "./run/index.js";
import type { PlacedRun, RunOptions } from "./run/index.js";
import { waitForSlot } from "./run-queue.js";
import { checkRunRequest, usableRunId } from "./run/index.js";
import type { RuntimeShared } from "./runtime-shared.js";
import type { RunPlacement } from "./run-backend.js";

/** One call of run(), once its request is known to be well formed. */
type RunCall<Q> = {
  readonly runId: string;
  readonly prompt: RunPrompt<Q>;
  readonly options: RunOptions;
  readonly masker: Masker;
  /** When run() was called (performance.now()): queuedMs counts from here. */
  readonly calledAt: number;
  readonly trace: RunTrace;
};

type EarlyEnd<R extends ReaderVerdict> = (reason: Outcome["reason"], error: string, queuedMs?: number) => Outcome<R>;

export function runOf<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>) {
  return (prompt: RunPrompt<Q>, runOptions: RunOptions = {}, ...extra: never[]): Promise<Outcome<R>> => {
    const calledAt = performance.now();
    const invalid = checkRunRequest(prompt, runOptions, shared.container.staging?.runtimeDir, extra);
    // One Run, one id: a refusal carries the caller's id too, when that id itself is good.
    const runId = usableRunId(runOptions) ?? newRunId();
    // The caller's span when it made one (it ends it); else the Run's own, under the active context, ended here.
    const given = isRunTrace(runOptions?.trace) ? runOptions.trace : undefined;
    const trace = given ?? startRunTrace(runId, context.active());
    given?.set({ runId });
    const answer = (outcome: Outcome<R>): Outcome<R> => {
      if (given === undefined) trace.end(runEndOf(outcome));
      return ended(shared, outcome);
    };
    // A malformed call may hold secrets we cannot read yet: mask with what the declaration knows.
    if (invalid !== undefined) return Promise.resolve(answer(earlyOutcome<R>(runId, calledAt, shared.declaredMasker, "invalid_request", invalid)));
    const call: RunCall<Q> = { runId, prompt, options: runOptions, masker: runMasker(shared.declared, runOptions), calledAt, trace };
    const early: EarlyEnd<R> = (reason, error, queuedMs = 0) => answer({ ...earlyOutcome<R>(runId, calledAt, call.masker, reason, error), queuedMs });
    const signal = runOptions.signal;
    if (signal?.aborted) {
      const { why, detail } = callerAbort(signal);
      return Promise.resolve(early(why, `${detail} before the Run started`));
    }
    // The store it resumes is in use from here (queued, then through the start-up sweep) until the Run
    // has ended and kept it again: no sweep of this process takes it meanwhile.
    const release = holdResumedStore(shared, runOptions);
    return waitForSlot({
      limit: shared.limit,
      signal,
      cancelled: () => {
        const { why, detail } = callerAbort(signal as AbortSignal);
        return early(why, `${detail} while the Run waited for a free slot`, Math.round(performance.now() - calledAt));
      },
      inSlot: () => runInSlot(shared, call, early, answer),
      settled: release,
    });
  };
}

/** Holds the session store the Run resumes (a staged declaration only); the release to call at its answer. */
function holdResumedStore<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>, options: RunOptions): () => void {
  const runtimeDir = shared.container.staging?.runtimeDir;
  const resumed = options.sessionStore?.resume;
  if (runtimeDir === undefined || resumed === undefined) return () => undefined;
  return holdSessionStore(runtimeDir, options.sessionStore?.namespace ?? "", resumed);
}

/** The Run in its slot: after the start-up sweep (or the caller's cancel), performed; a defect of ours is still an Outcome. */
async function runInSlot<R extends ReaderVerdict, Q>(
  shared: RuntimeShared<R, Q>,
  call: RunCall<Q>,
  early: EarlyEnd<R>,
  answer: (outcome: Outcome<R>) => Outcome<R>,
): Promise<Outcome<R>> {
  const signal = call.options.signal;
  // The Run first takes its place from the backend (with several engines, a slot on one of them: engine-set.ts).
  const place = await shared.backend.place(shared.container.image, signal);
  if (place === undefined) {
    const { why, detail } = callerAbort(signal as AbortSignal);
    return early(why, `${detail} while the Run waited for a free slot on an engine`, Math.round(performance.now() - call.calledAt));
  }
  if ("refused" in place) return early("unavailable", place.refused, Math.round(performance.now() - call.calledAt));
  const lease: RunPlacement = place;
  if (lease.name !== undefined) shared.logger.info({ runId: call.runId, engine: lease.name }, "the Run is placed on an engine");
  // The Run's own time starts with its slot; the wait before it is queuedMs.
  const startedAt = performance.now();
  const queuedMs = Math.round(startedAt - call.calledAt);
  if (queuedMs > 0) call.trace.stepDone("queue", performance.timeOrigin + call.calledAt, performance.timeOrigin + startedAt);
  liveRuns.add(call.runId);
  try {
    await Promise.race([shared.sweepAtStartup(), ...(signal === undefined ? [] : [aborted(signal)])]);
    const placed = await placedCall(call, lease);
    if ("refused" in placed) return early("unavailable", placed.refused, queuedMs);
    const outcome = await performRun<R, Q>(runContextOf(shared, placed.call, startedAt, lease));
    const { containerRuntime } = shared.container;
    return answer({ ...outcome, queuedMs, ...(containerRuntime === undefined ? {} : { containerRuntime }) });
  } catch (error) {
    // performRun resolves for everything it knows of; this is a defect, still not a rejection.
    return early("unavailable", `internal error: ${error instanceof Error ? error.message : String(error)}`, queuedMs);
  } finally {
    liveRuns.delete(call.runId);
    lease.release();
  }
}

/**
 * The call with what its atPlacement decided for the engine it was placed on (its env added, its
 * network replaced, each value masked from now), or why it cannot go there.
 */
async function placedCall<Q>(call: RunCall<Q>, lease: RunPlacement): Promise<{ readonly call: RunCall<Q> } | { readonly refused: string }> {
  const { atPlacement } = call.options;
  if (atPlacement === undefined) return { call };
  let placed: PlacedRun;
  try {
    placed = await atPlacement(lease.name);
  } catch (error) {
    const where = lease.name === undefined ? "its engine" : `the engine ${JSON.stringify(lease.name)}`;
    return { refused: call.masker.mask(`the Run could not be readied on ${where}: ${error instanceof Error ? error.message : String(error)}`) };
  }
  for (const value of Object.values(placed.env ?? {})) call.masker.add(value);
  const options: RunOptions = {
    ...call.options,
    ...(placed.env === undefined ? {} : { env: { ...call.options.env, ...placed.env } }),
    ...(placed.network === undefined ? {} : { network: placed.network }),
  };
  return { call: { ...call, options } };
}

/** Resolves when the signal aborts (at once when it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}

/** What performRun is given: the call's options over the runtime's, timed and owned from now. */
function runContextOf<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>, call: RunCall<Q>, startedAt: number, lease: RunPlacement): RunContext<R, Q> {
  const { container } = shared;
  const { options } = call;
  // A drained engine ends the Run as the caller's own signal would, with its reason (EarlyEnd "unavailable").
  const signal = lease.signal === undefined ? options.signal : options.signal === undefined ? lease.signal : AbortSignal.any([options.signal, lease.signal]);
  const timeoutSeconds = options.timeoutSeconds ?? container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  return {
    runId: call.runId,
    trace: call.trace,
    ownership: shared.ownershipOf(timeoutSeconds),
    prompt: call.prompt,
    container,
    planFunction: shared.planFunction,
    engine: lease.engine,
    logger: shared.logger,
    masker: call.masker,
    startedAt,
    timeoutSeconds,
    graceMs: shared.graceMs,
    ...(signal === undefined ? {} : { signal }),
    ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
    ...(options.harvestTo === undefined ? {} : { harvestTo: options.harvestTo }),
    replaceHarvestTo: options.replaceHarvestTo === true,
    ...(options.sessionStore === undefined ? {} : { sessionStore: options.sessionStore }),
    runEnv: options.env ?? {},
    ...(options.envAtClaim === undefined ? {} : { envAtClaim: options.envAtClaim }),
    secretFiles: options.secretFiles ?? [],
    tmpfsSecrets: options.tmpfsSecrets ?? {},
    ...(options.stallSeconds === undefined ? {} : { stallSeconds: options.stallSeconds }),
    ...(options.onStallWarning === undefined ? {} : { onStallWarning: options.onStallWarning }),
    ...(options.network === undefined ? {} : { network: options.network, addresses: shared.addresses }),
    owner: shared.owner,
    writeBound: shared.writeBound,
    runFiles: shared.runFiles,
    ...(shared.pool === undefined ? {} : { pool: shared.pool }),
    backend: shared.backend,
  };
}

/** A RunTrace handed in from plain JavaScript is used only when it is one. */
function isRunTrace(value: RunTrace | undefined): value is RunTrace {
  const candidate = value as Partial<RunTrace> | undefined;
  return typeof candidate?.step === "function" && typeof candidate.stepDone === "function" && typeof candidate.end === "function";
}

/** What the Run's span says of its end: kinds and counts only. */
function runEndOf<R extends ReaderVerdict>(outcome: Outcome<R>): RunEnd {
  return {
    ok: outcome.ok,
    reason: outcome.reason,
    ...(outcome.exit === undefined ? {} : { exitCode: outcome.exit.code }),
    ...(outcome.queuedMs === undefined ? {} : { queuedMs: outcome.queuedMs }),
    ...(outcome.warm === undefined ? {} : { warm: outcome.warm }),
  };
}

/** Every answer of run() is said once in the log. */
function ended<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>, outcome: Outcome<R>): Outcome<R> {
  shared.logger.info({ runId: outcome.runId, reason: outcome.reason, ok: outcome.ok, exit: outcome.exit, durationMs: outcome.durationMs }, "run ended");
  return outcome;
}
