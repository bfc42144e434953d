// The front of the library: an Agent Container plus one Run Plan function make a Runtime.
// Construction validates and composes once (so a bad declaration throws where it was written);
// run() never rejects for what happens to a Run, commandFor() starts nothing, sweep() cleans up.

import { randomBytes } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import Docker from "dockerode";
import pLimit from "p-limit";
import { pino, type Logger } from "pino";
import type { Outcome, ReaderVerdict, RunPlanFunction, RunPrompt } from "../plan/index.js";
import { sweepRunDirectories, type RunInputs } from "../staging/index.js";
import type { SecretFile } from "../staging/layout.js";
import { validateAgentContainer, AgentContainerError, type AgentContainer } from "./agent-container.js";
import { composeSpec, DEFAULT_OWNER, OWNER_LABEL, RUN_LABEL } from "./compose.js";
import { createDockerEngine, engineMessage, type Engine } from "./engine.js";
import { ENV_NAME } from "./extra-args.js";
import {
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_STOP_GRACE_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_CONCURRENT_RUNS,
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
} from "./limits.js";
import { liveRuns } from "./live-runs.js";
import { checkPlan, earlyOutcome, performRun } from "./perform.js";
import { createMasker } from "./redact.js";
import { renderCommand, type ComposedCommand } from "./render-cli.js";

export type RuntimeOptions<R extends ReaderVerdict = ReaderVerdict> = {
  readonly container: AgentContainer;
  /** Answers each Run with its plan; called once per Run and once per commandFor. */
  readonly run: RunPlanFunction<R>;
  /** Runs at once; more queue. Default 1. */
  readonly maxConcurrentRuns?: number;
  /** The engine connection; default: dockerode's own (DOCKER_HOST, else the local socket). */
  readonly docker?: Docker;
};

export type RunOptions = {
  readonly signal?: AbortSignal;
  /** Overrides the declaration's timeout for this Run; 1 s to 24 h. */
  readonly timeoutSeconds?: number;
  /** What to copy into the Run's `work/` (needs `staging`); default: nothing. */
  readonly inputs?: RunInputs;
  /** Absolute directory to Harvest `out/` into after the Run (needs `staging`); replaced whole. Default: no Harvest. */
  readonly harvestTo?: string;
  /** Environment for this Run only (an agent's credential): secret, masked everywhere, never in argv. Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Files for this Run only (a CLI's login), mounted read-only where the agent expects them; their
   * content is secret and masked, and they are removed with the Run even when the record is kept.
   * Needs `staging`. Default: none.
   */
  readonly secretFiles?: readonly SecretFile[];
};

export type { SecretFile };

export type SweepResult = {
  /** Container ids removed. */
  readonly removed: readonly string[];
  /** Run ids whose directories were removed from the Staging Directory. */
  readonly removedRunDirectories: readonly string[];
};

export type AgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict> = {
  readonly run: (prompt: RunPrompt, options?: RunOptions) => Promise<Outcome<R>>;
  readonly commandFor: (prompt: RunPrompt, options?: Pick<RunOptions, "env" | "secretFiles">) => ComposedCommand;
  /**
   * Removes this owner's containers and Run directories that belong to no live Run of this
   * process (what a crashed process left). Runs once by itself before the first Run.
   */
  readonly sweep: () => Promise<SweepResult>;
  /** Registers one more secret value to mask in every log line, record and Outcome. */
  readonly addSecret: (value: string) => void;
  /** Masks every registered secret in a JSON-like value (for what an adapter hands its caller live). */
  readonly maskDeep: <T>(value: T) => T;
};

export function newRunId(): string {
  return randomBytes(8).toString("hex");
}

export function createAgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict>(
  options: RuntimeOptions<R>,
): AgentContainerRuntime<R> {
  const container = validateAgentContainer(options.container);
  if (typeof options.run !== "function") {
    throw new AgentContainerError(`run is ${JSON.stringify(typeof options.run)}, not a function; pass (prompt) => RunPlan`);
  }
  const concurrency = options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENT_RUNS) {
    throw new AgentContainerError(`maxConcurrentRuns ${JSON.stringify(concurrency)} is out of range; write a whole number from 1 to ${MAX_CONCURRENT_RUNS}`);
  }
  // Compose once now, with a placeholder plan, so a declaration that cannot render throws here.
  try {
    composeSpec(container, [], "0000000000000000");
  } catch (error) {
    throw new AgentContainerError(`Agent Container is invalid: ${(error as Error).message}`, { cause: error });
  }

  const logger: Logger = container.logger ?? pino({ name: "agentcage" }, pino.destination(2));
  const masker = createMasker([...Object.values(container.env ?? {}), ...container.extra.env.map(([, v]) => v)]);
  const engine: Engine = createDockerEngine(options.docker);
  const limit = pLimit(concurrency);
  const owner = container.owner ?? DEFAULT_OWNER;
  let startupSweep: Promise<unknown> | undefined;

  const sweep = async (): Promise<SweepResult> => {
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
  };

  const run = (prompt: RunPrompt, runOptions: RunOptions = {}): Promise<Outcome<R>> => {
    const runId = newRunId();
    const startedAt = performance.now();
    const early = (reason: Outcome["reason"], error: string) => log(earlyOutcome<R>(runId, startedAt, masker, reason, error));
    const invalid = checkRunRequest(prompt, runOptions, container.staging?.runtimeDir);
    if (invalid !== undefined) return Promise.resolve(early("invalid_request", invalid));
    maskRunSecrets(runOptions);
    const signal = runOptions.signal;
    if (signal?.aborted) return Promise.resolve(early("cancelled", "the Run was cancelled before it started"));

    return new Promise<Outcome<R>>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome<R>): void => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      // A Run cancelled while it waits for a slot ends at once, not when the slot comes.
      const cancelQueued = (): void => settle(early("cancelled", "the Run was cancelled while it waited for a free slot"));
      signal?.addEventListener("abort", cancelQueued, { once: true });
      void limit(async () => {
        signal?.removeEventListener("abort", cancelQueued);
        if (settled) return;
        liveRuns.add(runId);
        try {
          startupSweep ??= sweep().catch((error: unknown) => {
            logger.warn({ err: masker.mask(error instanceof Error ? error.message : String(error)) }, "the start-up sweep failed");
          });
          await startupSweep;
          settle(
            log(
              await performRun({
                runId,
                prompt,
                container,
                planFunction: options.run,
                engine,
                logger,
                masker,
                startedAt,
                timeoutSeconds: runOptions.timeoutSeconds ?? container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
                graceMs: (container.limits?.stopGraceSeconds ?? DEFAULT_STOP_GRACE_SECONDS) * 1000,
                ...(signal === undefined ? {} : { signal }),
                ...(runOptions.inputs === undefined ? {} : { inputs: runOptions.inputs }),
                ...(runOptions.harvestTo === undefined ? {} : { harvestTo: runOptions.harvestTo }),
                runEnv: runOptions.env ?? {},
                secretFiles: runOptions.secretFiles ?? [],
              }),
            ),
          );
        } catch (error) {
          // performRun resolves for everything it knows of; this is a defect, still not a rejection.
          settle(early("unavailable", `internal error: ${error instanceof Error ? error.message : String(error)}`));
        } finally {
          liveRuns.delete(runId);
        }
      });
    });
  };

  /** Registers what a Run brings of its own (its env values, its secret files) with the masker. */
  function maskRunSecrets(runSecrets: Pick<RunOptions, "env" | "secretFiles">): void {
    for (const value of Object.values(runSecrets.env ?? {})) masker.add(value);
    for (const file of runSecrets.secretFiles ?? []) masker.add(secretText(file.content));
  }

  function log(outcome: Outcome<R>): Outcome<R> {
    logger.info(
      { runId: outcome.runId, reason: outcome.reason, ok: outcome.ok, exit: outcome.exit, durationMs: outcome.durationMs },
      "run ended",
    );
    return outcome;
  }

  return {
    run,
    commandFor: (prompt, commandOptions = {}) => {
      const envProblem = checkRunEnv(commandOptions.env);
      if (envProblem !== undefined) throw new TypeError(envProblem);
      maskRunSecrets(commandOptions);
      const plan = options.run(prompt);
      const problem = checkPlan(plan);
      if (problem !== undefined) throw new TypeError(problem);
      const secretPaths = (commandOptions.secretFiles ?? []).map((file) => file.agentPath);
      return renderCommand(composeSpec(container, plan.args, newRunId(), commandOptions.env, secretPaths), plan.stdin, masker);
    },
    sweep,
    addSecret: masker.add,
    maskDeep: masker.maskDeep,
  };
}

/** A secret file's content as the text the masker looks for (bytes read as UTF-8). */
function secretText(content: string | Uint8Array): string {
  return typeof content === "string" ? content : Buffer.from(content).toString("utf8");
}

/** Whether one path is the other or lies inside it. */
function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => x === y || x.startsWith(y.endsWith("/") ? y : `${y}/`);
  return inside(a, b) || inside(b, a);
}

function checkRunRequest(prompt: RunPrompt, options: RunOptions, runtimeDir: string | undefined): string | undefined {
  const staged = runtimeDir !== undefined;
  if (typeof prompt !== "object" || prompt === null || typeof prompt.text !== "string") {
    return "the prompt is not { text: string }; pass the prompt's text as a string";
  }
  if (prompt.session !== undefined && typeof prompt.session !== "string") {
    return "the prompt's session is not a string; pass the session id to resume, or leave it out";
  }
  const t = options.timeoutSeconds;
  if (t !== undefined && !(Number.isInteger(t) && t >= MIN_TIMEOUT_SECONDS && t <= MAX_TIMEOUT_SECONDS)) {
    return `timeoutSeconds ${JSON.stringify(t)} is out of range; write a whole number from ${MIN_TIMEOUT_SECONDS} to ${MAX_TIMEOUT_SECONDS}`;
  }
  const envProblem = checkRunEnv(options.env);
  if (envProblem !== undefined) return envProblem;
  if (!staged && (options.inputs !== undefined || options.harvestTo !== undefined || (options.secretFiles ?? []).length > 0)) {
    return "inputs, harvestTo and secretFiles need a staged workspace; declare staging: { runtimeDir } in the Agent Container";
  }
  for (const file of options.secretFiles ?? []) {
    const path = file.agentPath;
    if (typeof path !== "string" || !path.startsWith("/") || path.split("/").some((part, i) => i > 0 && (part === "" || part === "." || part === ".."))) {
      return `secret file path ${JSON.stringify(path)} is not a normalized absolute path; write where the agent expects the file, like "/tmp/auth.json"`;
    }
    if (typeof file.content !== "string" && !(file.content instanceof Uint8Array)) return `secret file ${JSON.stringify(path)} has no content; pass a string or bytes`;
  }
  if (options.harvestTo !== undefined && !isAbsolute(options.harvestTo)) {
    return `harvestTo ${JSON.stringify(options.harvestTo)} is not absolute; pass an absolute directory path`;
  }
  if (options.harvestTo !== undefined && runtimeDir !== undefined && overlaps(resolve(options.harvestTo), resolve(runtimeDir))) {
    return `harvestTo ${JSON.stringify(options.harvestTo)} overlaps the Staging Directory ${JSON.stringify(runtimeDir)}; harvest to a directory outside it`;
  }
  return undefined;
}

function checkRunEnv(env: Readonly<Record<string, string>> | undefined): string | undefined {
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!ENV_NAME.test(name)) return `env name ${JSON.stringify(name)} is not a POSIX name; use letters, digits and _`;
    // Never quote the value: it is a secret.
    if (typeof value !== "string" || value.includes("\0")) return `env value of ${name} is not a string without NUL bytes; pass a plain string`;
  }
  return undefined;
}
