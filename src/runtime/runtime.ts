// The front of the library: an Agent Container plus one Run Plan function make a Runtime.
// Construction validates and composes once (so a bad declaration throws where it was written);
// run() queues for a slot and never rejects for what happens to a Run, commandFor() starts
// nothing, sweep() cleans up after a crashed process.

import type Docker from "dockerode";
import pLimit from "p-limit";
import { pino, type Logger } from "pino";
import {
  AgentContainerError,
  DEFAULT_OWNER,
  DEFAULT_STOP_GRACE_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  validateAgentContainer,
  type AgentContainer,
  type ComposedCommand,
  renderCommand,
} from "../container/index.js";
import { createDockerEngine, type Engine } from "../engine/index.js";
import type { Outcome, ReaderVerdict, RunPlanFunction, RunPrompt } from "../plan/index.js";
import { createMasker } from "../redact/index.js";
import { canBoundWrites } from "../staging/index.js";
import { composeRun, containerDeadlineSeconds } from "./compose.js";
import { earlyOutcome } from "./end-reason.js";
import { DEFAULT_MAX_CONCURRENT_RUNS, ENGINE_ANSWER_MARGIN_MS, ENGINE_CLEANUP_TIMEOUT_MS, MAX_CONCURRENT_RUNS } from "./limits.js";
import { bounded } from "./stop.js";

/** Resolves when the signal aborts (at once when it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
}
import { liveRuns, liveSessionStores } from "./live-runs.js";
import { checkPlan } from "./plan.js";
import { performRun, type WriteBound } from "./run.js";
import { newRunId } from "./run-id.js";
import { declaredSecrets, runMasker } from "./run-masker.js";
import { checkRunRequest, checkRunSecrets } from "./run-request.js";
import { callerAbort, checkCallShape, COMMAND_OPTION_NAMES, describeValue, RunRequestError } from "./misuse.js";
import type { RunOptions } from "./run-options.js";
import { sweep as sweepOwner, type SweepResult } from "./sweep.js";
import { newSessionId, ownershipLabels, thisProcess, type Ownership } from "./ownership.js";

export type RuntimeOptions<R extends ReaderVerdict = ReaderVerdict, Q = undefined> = {
  readonly container: AgentContainer;
  /** Answers each Run with its plan; called once per Run and once per commandFor. */
  readonly run: RunPlanFunction<R, Q>;
  /** Runs at once; more queue (see `queuedMs`). Default: DEFAULT_MAX_CONCURRENT_RUNS, one per core within the machine's memory. */
  readonly maxConcurrentRuns?: number;
  /** The Docker connection the default engine uses; default: dockerode's own (DOCKER_HOST, else the local socket). */
  readonly docker?: Docker;
  /** The container engine; default: Docker through `docker`. Give one or the other, not both. */
  readonly engine?: Engine;
  /**
   * How what an agent writes to out/ (or a writable work/, staging.writableBytes) and to a session
   * store's working copy is bounded: "mount", a tmpfs this process mounts (it must be root on the
   * engine's host, allowed to mount); "volume", in-memory volumes of the Run's own that the engine
   * mounts, filled with what was staged and copied back after the Run (a non-root orchestrator).
   * Default "mount" where this process can mount, else "volume".
   */
  readonly writeBound?: WriteBound;
};

export type AgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict, Q = undefined> = {
  readonly run: (prompt: RunPrompt<Q>, options?: RunOptions) => Promise<Outcome<R>>;
  readonly commandFor: (prompt: RunPrompt<Q>, options?: Pick<RunOptions, "env" | "secretFiles" | "secrets">) => ComposedCommand;
  /**
   * Removes this owner's containers and Run directories that belong to no live Run of this
   * process (what a crashed process left). Runs once by itself before the first Run.
   */
  readonly sweep: () => Promise<SweepResult>;
  /** This runtime's session id: on every container and Run directory it makes, so no other process's sweep ends them. */
  readonly session: string;
  /**
   * Marks the kept session store `id` of `namespace` as in use until the returned release is called
   * (once; later calls do nothing): no sweep of this process takes it meanwhile. For a Run that waits
   * outside this runtime (a service's own queue) for the store it will resume. Without staging, nothing is held.
   */
  readonly holdSessionStore: (namespace: string, id: string) => () => void;
  /** Whether a Run could start now: the engine answers, and holds the declared image. Never throws. */
  readonly check: () => Promise<{ readonly engine: boolean; readonly image: boolean }>;
};

const RUNTIME_OPTION_NAMES = ["container", "run", "maxConcurrentRuns", "docker", "engine", "writeBound"];
const WRITE_BOUNDS: readonly WriteBound[] = ["mount", "volume"];

export function createAgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict, Q = undefined>(
  options: RuntimeOptions<R, Q>,
  ...extra: never[]
): AgentContainerRuntime<R, Q> {
  if (extra.length > 0) throw new AgentContainerError(`createAgentContainerRuntime takes one argument, { container, run }; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new AgentContainerError(
      `createAgentContainerRuntime's options ${describeValue(options)} is not an object; pass { container: { image }, run: (prompt) => plan }`,
    );
  }
  const unknown = Object.keys(options).filter((key) => !RUNTIME_OPTION_NAMES.includes(key));
  if (unknown.length > 0)
    throw new AgentContainerError(
      `createAgentContainerRuntime option ${JSON.stringify(unknown[0])} is not one it knows; use ${RUNTIME_OPTION_NAMES.join(", ")}`,
    );
  if (typeof options.container !== "object" || options.container === null) {
    throw new AgentContainerError(`container ${describeValue(options.container)} is not an Agent Container; pass { image: "..." } at the least`);
  }
  const container = validateAgentContainer(options.container);
  if (typeof options.run !== "function") {
    throw new AgentContainerError(`run is ${JSON.stringify(typeof options.run)}, not a function; pass (prompt) => RunPlan`);
  }
  const concurrency = options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENT_RUNS) {
    throw new AgentContainerError(`maxConcurrentRuns ${JSON.stringify(concurrency)} is out of range; write a whole number from 1 to ${MAX_CONCURRENT_RUNS}`);
  }
  if (options.engine !== undefined && options.docker !== undefined) {
    throw new AgentContainerError("both engine and docker are given; pass an engine, or a docker connection for the default engine, not both");
  }
  if (options.engine !== undefined && (typeof options.engine !== "object" || options.engine === null || typeof options.engine.create !== "function")) {
    throw new AgentContainerError("engine is not an Engine; pass createDockerEngine(...) or leave it out");
  }
  // Compose once now, with a placeholder plan, so a declaration that cannot render throws here.
  try {
    composeRun(container, {
      runId: "0000000000000000",
      planArgs: [],
      deadlineSeconds: containerDeadlineSeconds((container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000),
    });
  } catch (error) {
    throw new AgentContainerError(`Agent Container is invalid: ${(error as Error).message}`, { cause: error });
  }

  if (options.writeBound !== undefined && !WRITE_BOUNDS.includes(options.writeBound)) {
    throw new AgentContainerError(
      `writeBound ${describeValue(options.writeBound)} is not one of ${WRITE_BOUNDS.join(", ")}; leave it out to have the runtime choose`,
    );
  }
  if (options.writeBound === "mount" && !canBoundWrites()) {
    throw new AgentContainerError(
      'writeBound "mount" needs this process to mount a tmpfs (root on the engine\'s host, allowed to mount), and it cannot; pass "volume", or leave it out',
    );
  }
  const writeBound: WriteBound = options.writeBound ?? (canBoundWrites() ? "mount" : "volume");
  const logger: Logger = container.logger ?? pino({ name: "agentcage" }, pino.destination(2));
  const declared = declaredSecrets(container);
  const declaredMasker = createMasker(declared);
  const engine: Engine = options.engine ?? createDockerEngine(options.docker);
  const limit = pLimit(concurrency);
  const owner = container.owner ?? DEFAULT_OWNER;
  const session = newSessionId();
  const me = thisProcess();
  const graceMs = (container.limits?.stopGraceSeconds ?? DEFAULT_STOP_GRACE_SECONDS) * 1000;
  /** A Run starting now: this session's, this process's, over at its timeout plus the grace and the engine's margin. */
  const ownershipOf = (timeoutSeconds: number): Ownership => ({
    session,
    ...me,
    deadline: String(Date.now() + timeoutSeconds * 1000 + graceMs + ENGINE_ANSWER_MARGIN_MS),
  });
  const sweep = (...extra: never[]): Promise<SweepResult> =>
    extra.length > 0
      ? Promise.reject(new RunRequestError(`sweep takes no arguments; ${extra.length} were given`))
      : sweepOwner({ container, owner, session, engine, logger, masker: declaredMasker });
  let startupSweep: Promise<unknown> | undefined;

  const run = (prompt: RunPrompt<Q>, runOptions: RunOptions = {}, ...extra: never[]): Promise<Outcome<R>> => {
    const calledAt = performance.now();
    const invalid = checkRunRequest(prompt, runOptions, container.staging?.runtimeDir, extra);
    const chosen = invalid === undefined ? runOptions?.runId : undefined;
    const runId = chosen ?? newRunId();
    // A malformed call may hold secrets we cannot read yet: mask with what the declaration knows.
    if (invalid !== undefined) return Promise.resolve(log(earlyOutcome<R>(runId, calledAt, declaredMasker, "invalid_request", invalid)));
    const masker = runMasker(declared, runOptions);
    const early = (reason: Outcome["reason"], error: string, queuedMs = 0) => log({ ...earlyOutcome<R>(runId, calledAt, masker, reason, error), queuedMs });
    const signal = runOptions.signal;
    if (signal?.aborted) {
      const { why, detail } = callerAbort(signal);
      return Promise.resolve(early(why, `${detail} before the Run started`));
    }

    // The store it resumes is in use from here (queued, then through the start-up sweep) until the Run
    // has ended and kept it again: no sweep of this process takes it meanwhile.
    const resumed = container.staging === undefined ? undefined : runOptions.sessionStore?.resume;
    const store = resumed === undefined ? undefined : ([container.staging?.runtimeDir ?? "", runOptions.sessionStore?.namespace ?? "", resumed] as const);
    if (store !== undefined) liveSessionStores.add(...store);
    return new Promise<Outcome<R>>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome<R>): void => {
        if (settled) return;
        settled = true;
        if (store !== undefined) liveSessionStores.delete(...store);
        resolve(outcome);
      };
      // A Run cancelled while it waits for a slot ends at once, not when the slot comes.
      const cancelQueued = (): void => {
        const { why, detail } = callerAbort(signal as AbortSignal);
        settle(early(why, `${detail} while the Run waited for a free slot`, Math.round(performance.now() - calledAt)));
      };
      signal?.addEventListener("abort", cancelQueued, { once: true });
      void limit(async () => {
        signal?.removeEventListener("abort", cancelQueued);
        if (settled) return;
        // The Run's own time starts with its slot; the wait before it is queuedMs.
        const startedAt = performance.now();
        const queuedMs = Math.round(startedAt - calledAt);
        liveRuns.add(runId);
        try {
          // Bounded: an engine that does not answer must not hold every Run (and its cancel) at the door.
          startupSweep ??= bounded(sweep(), ENGINE_CLEANUP_TIMEOUT_MS, "the start-up sweep").catch((error: unknown) => {
            logger.warn({ err: declaredMasker.mask(error instanceof Error ? error.message : String(error)) }, "the start-up sweep failed");
          });
          await Promise.race([startupSweep, ...(signal === undefined ? [] : [aborted(signal)])]);
          const timeoutSeconds = runOptions.timeoutSeconds ?? container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
          const ownership = ownershipOf(timeoutSeconds);
          const outcome = await performRun<R, Q>({
            runId,
            ownership,
            prompt,
            container,
            planFunction: options.run,
            engine,
            logger,
            masker,
            startedAt,
            timeoutSeconds,
            graceMs,
            ...(signal === undefined ? {} : { signal }),
            ...(runOptions.inputs === undefined ? {} : { inputs: runOptions.inputs }),
            ...(runOptions.harvestTo === undefined ? {} : { harvestTo: runOptions.harvestTo }),
            replaceHarvestTo: runOptions.replaceHarvestTo === true,
            ...(runOptions.sessionStore === undefined ? {} : { sessionStore: runOptions.sessionStore }),
            runEnv: runOptions.env ?? {},
            secretFiles: runOptions.secretFiles ?? [],
            ...(runOptions.stallSeconds === undefined ? {} : { stallSeconds: runOptions.stallSeconds }),
            ...(runOptions.onStallWarning === undefined ? {} : { onStallWarning: runOptions.onStallWarning }),
            ...(runOptions.network === undefined ? {} : { network: runOptions.network }),
            owner,
            writeBound,
          });
          settle(log({ ...outcome, queuedMs, ...(container.containerRuntime === undefined ? {} : { containerRuntime: container.containerRuntime }) }));
        } catch (error) {
          // performRun resolves for everything it knows of; this is a defect, still not a rejection.
          settle(early("unavailable", `internal error: ${error instanceof Error ? error.message : String(error)}`, queuedMs));
        } finally {
          liveRuns.delete(runId);
        }
      });
    });
  };

  function log(outcome: Outcome<R>): Outcome<R> {
    logger.info({ runId: outcome.runId, reason: outcome.reason, ok: outcome.ok, exit: outcome.exit, durationMs: outcome.durationMs }, "run ended");
    return outcome;
  }

  const commandFor = (prompt: RunPrompt<Q>, commandOptions: Pick<RunOptions, "env" | "secretFiles" | "secrets"> = {}, ...extra: never[]): ComposedCommand => {
    const shape = checkCallShape("commandFor", commandOptions, COMMAND_OPTION_NAMES, extra);
    if (shape !== undefined) throw new RunRequestError(shape);
    if (typeof prompt !== "object" || prompt === null || typeof (prompt as { text?: unknown }).text !== "string") {
      throw new RunRequestError(`the prompt ${describeValue(prompt)} is not { text: string }; pass the prompt's text as a string`);
    }
    const problem = checkRunSecrets(commandOptions);
    if (problem !== undefined) throw new RunRequestError(problem);
    const runId = newRunId();
    const masker = runMasker(declared, commandOptions);
    const plan = options.run(prompt, { runId, mask: masker.maskDeep });
    const planProblem = checkPlan(plan);
    if (planProblem !== undefined) throw new RunRequestError(planProblem);
    const timeoutSeconds = container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const spec = composeRun(container, {
      runId,
      planArgs: plan.args,
      // As run() times a Run that starts now: the container's own timer, a margin after the timeout.
      deadlineSeconds: containerDeadlineSeconds(timeoutSeconds * 1000),
      ...(commandOptions.env === undefined ? {} : { runEnv: commandOptions.env }),
      ...(commandOptions.secretFiles === undefined ? {} : { secretFiles: commandOptions.secretFiles }),
      // As run() labels it, so both renderings agree and a sweep knows whose it is.
      labels: ownershipLabels(ownershipOf(timeoutSeconds)),
    });
    return renderCommand(spec, plan.stdin, masker);
  };

  const check = async (): Promise<{ engine: boolean; image: boolean }> => {
    const engineAnswers = await engine.ping().then(
      () => true,
      () => false,
    );
    if (!engineAnswers) return { engine: false, image: false };
    return { engine: true, image: await engine.hasImage(container.image).catch(() => false) };
  };

  const holdSessionStore = (namespace: string, id: string): (() => void) => {
    const runtimeDir = container.staging?.runtimeDir;
    if (runtimeDir === undefined) return () => undefined;
    liveSessionStores.add(runtimeDir, namespace, id);
    let held = true;
    return () => {
      if (held) liveSessionStores.delete(runtimeDir, namespace, id);
      held = false;
    };
  };

  return { run, commandFor, sweep, session, check, holdSessionStore };
}
