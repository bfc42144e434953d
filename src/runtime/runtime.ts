// The front of the library: an Agent Container plus one Run Plan function make a Runtime.
// Construction validates and composes once (so a bad declaration throws where it was written);
// run() never rejects for what happens to a Run, commandFor() starts nothing, sweep() cleans up.

import { randomBytes } from "node:crypto";
import Docker from "dockerode";
import pLimit from "p-limit";
import { pino, type Logger } from "pino";
import type { Outcome, ReaderVerdict, RunPlan, RunPlanFunction, RunPrompt } from "../plan/index.js";
import { validateAgentContainer, AgentContainerError, type AgentContainer, type ValidatedContainer } from "./agent-container.js";
import { composeSpec, DEFAULT_OWNER, OWNER_LABEL, RUN_LABEL } from "./compose.js";
import { createDockerEngine, engineMessage, type Engine } from "./engine.js";
import { executeRun } from "./execute.js";
import {
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_STOP_GRACE_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_CONCURRENT_RUNS,
  MAX_STDIN_BYTES,
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
} from "./limits.js";
import { createMasker, type Masker } from "./redact.js";
import { renderCommand, type ComposedCommand } from "./render-cli.js";
import { renderCreateBody } from "./render-api.js";

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
};

export type SweepResult = { readonly removed: readonly string[] };

export type AgentContainerRuntime<R extends ReaderVerdict = ReaderVerdict> = {
  readonly run: (prompt: RunPrompt, options?: RunOptions) => Promise<Outcome<R>>;
  readonly commandFor: (prompt: RunPrompt) => ComposedCommand;
  /** Removes this owner's containers that belong to no live Run of this runtime. */
  readonly sweep: () => Promise<SweepResult>;
  /** Registers one more secret value to mask in every log line, record and Outcome. */
  readonly addSecret: (value: string) => void;
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
  composeSpec(container, [], "0000000000000000");

  const logger: Logger = container.logger ?? pino({ name: "agentcage" }, pino.destination(2));
  const masker = createMasker([...Object.values(container.env ?? {}), ...container.extra.env.map(([, v]) => v)]);
  const engine: Engine = createDockerEngine(options.docker);
  const limit = pLimit(concurrency);
  const owner = container.owner ?? DEFAULT_OWNER;
  const liveRuns = new Set<string>();

  const run = (prompt: RunPrompt, runOptions: RunOptions = {}): Promise<Outcome<R>> => {
    const runId = newRunId();
    const startedAt = performance.now();
    const early = (reason: Outcome["reason"], error: string): Outcome<R> => ({
      runId,
      ok: false,
      reason,
      error: masker.mask(error),
      durationMs: Math.round(performance.now() - startedAt),
      stdoutBytes: 0,
      stderrBytes: 0,
      stderr: "",
    });
    const invalid = checkRunRequest(prompt, runOptions);
    if (invalid !== undefined) return Promise.resolve(log(early("invalid_request", invalid)));
    const signal = runOptions.signal;
    if (signal?.aborted) return Promise.resolve(log(early("cancelled", "the Run was cancelled before it started")));
    const timeoutSeconds = runOptions.timeoutSeconds ?? container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;

    return new Promise<Outcome<R>>((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome<R>): void => {
        if (settled) return;
        settled = true;
        resolve(log(outcome));
      };
      // A Run cancelled while it waits for a slot ends at once, not when the slot comes.
      const cancelQueued = (): void => settle(early("cancelled", "the Run was cancelled while it waited for a free slot"));
      signal?.addEventListener("abort", cancelQueued, { once: true });
      void limit(async () => {
        signal?.removeEventListener("abort", cancelQueued);
        if (settled) return;
        const planned = planRun(prompt);
        if (typeof planned === "string") return settle(early("plan_error", planned));
        const stdin = typeof planned.stdin === "string" ? Buffer.from(planned.stdin, "utf8") : planned.stdin;
        if (stdin.length > MAX_STDIN_BYTES) {
          return settle(early("input_limit", `the plan's stdin is ${stdin.length} bytes, over its limit of ${MAX_STDIN_BYTES} (MAX_STDIN_BYTES); send a shorter prompt or hand large inputs over as files`));
        }
        const spec = composeSpec(container, planned.args, runId);
        const command = renderCommand(spec, stdin);
        logger.info({ runId, command: [command.command, ...command.redactedArgs].map(masker.mask) }, "run started");
        liveRuns.add(runId);
        try {
          settle(
            await executeRun({
              runId,
              spec,
              body: renderCreateBody(spec),
              plan: planned,
              stdin,
              engine,
              timeoutMs: timeoutSeconds * 1000,
              graceMs: (container.limits?.stopGraceSeconds ?? DEFAULT_STOP_GRACE_SECONDS) * 1000,
              ...(signal === undefined ? {} : { signal }),
              logger,
              masker,
              startedAt,
            }),
          );
        } catch (error) {
          // executeRun resolves for everything it knows of; this is a defect, still not a rejection.
          settle(early("unavailable", `internal error: ${error instanceof Error ? error.message : String(error)}`));
        } finally {
          liveRuns.delete(runId);
        }
      });
    });
  };

  function log(outcome: Outcome<R>): Outcome<R> {
    logger.info(
      { runId: outcome.runId, reason: outcome.reason, ok: outcome.ok, exit: outcome.exit, durationMs: outcome.durationMs },
      "run ended",
    );
    return outcome;
  }

  function planRun(prompt: RunPrompt): RunPlan<R> | string {
    let plan: RunPlan<R>;
    try {
      plan = options.run(prompt);
    } catch (error) {
      return `the Run Plan function threw: ${error instanceof Error ? error.message : String(error)}`;
    }
    const problem = checkPlan(plan);
    return problem ?? plan;
  }

  return {
    run,
    commandFor: (prompt) => {
      const plan = options.run(prompt);
      const problem = checkPlan(plan);
      if (problem !== undefined) throw new TypeError(problem);
      return renderCommand(composeSpec(container, plan.args, newRunId()), plan.stdin);
    },
    sweep: async () => {
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
      if (removed.length > 0) logger.info({ owner, removed: removed.length }, "swept containers left by earlier Runs");
      return { removed };
    },
    addSecret: masker.add,
  };
}

function checkRunRequest(prompt: RunPrompt, options: RunOptions): string | undefined {
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
  return undefined;
}

function checkPlan(plan: unknown): string | undefined {
  const p = plan as Partial<RunPlan> | null;
  if (typeof p !== "object" || p === null) return "the Run Plan function returned no plan; return { args, stdin, outcome }";
  if (!Array.isArray(p.args) || !p.args.every((a) => typeof a === "string" && !a.includes("\0"))) {
    return "the plan's args are not a list of strings without NUL bytes; return args as string[]";
  }
  if (typeof p.stdin !== "string" && !(p.stdin instanceof Uint8Array)) return "the plan's stdin is neither a string nor bytes; return the prompt as stdin";
  if (typeof p.outcome !== "function") return "the plan's outcome is not a function; return a reader (stdout) => Promise<{ ok }>";
  return undefined;
}

export type { Masker };
