// One Run once it has its slot: plan, stage the workspace, compose, execute, harvest, record.
// Every step's failure becomes the Outcome's reason; nothing of the Run is left but a kept record.

import { rm } from "node:fs/promises";
import type { Logger } from "pino";
import type { EndReason, Outcome, ReaderVerdict, RunPlan, RunPlanFunction, RunPrompt } from "../plan/index.js";
import { harvest, type HarvestResult } from "../staging/harvest/index.js";
import { prepareRunDirectory, StagingError, type RunInputs } from "../staging/index.js";
import { createRecordStream, writeAtomically, type RecordStream } from "../staging/record.js";
import type { RunDirectory, SecretFile } from "../staging/layout.js";
import type { ValidatedContainer } from "./agent-container.js";
import { composeSpec, DEFAULT_OWNER, resolveAgentUser } from "./compose.js";
import type { Engine } from "./engine.js";
import { executeRun } from "./execute.js";
import { MAX_STDERR_RECORD_BYTES, MAX_STDIN_BYTES, MAX_STDOUT_BYTES } from "./limits.js";
import type { Masker } from "./redact.js";
import { renderCommand } from "./render-cli.js";
import { renderCreateBody } from "./render-api.js";

export type PerformContext<R extends ReaderVerdict> = {
  readonly runId: string;
  readonly prompt: RunPrompt;
  readonly container: ValidatedContainer;
  readonly planFunction: RunPlanFunction<R>;
  readonly engine: Engine;
  readonly logger: Logger;
  readonly masker: Masker;
  readonly startedAt: number;
  readonly timeoutSeconds: number;
  readonly graceMs: number;
  readonly signal?: AbortSignal;
  readonly inputs?: RunInputs;
  readonly harvestTo?: string;
  readonly runEnv: Readonly<Record<string, string>>;
  readonly secretFiles: readonly SecretFile[];
};

/** An Outcome for a Run that ended before its container ran. */
export function earlyOutcome<R extends ReaderVerdict>(runId: string, startedAt: number, masker: Masker, reason: EndReason, error: string): Outcome<R> {
  return {
    runId,
    ok: false,
    reason,
    error: masker.mask(error),
    durationMs: Math.round(performance.now() - startedAt),
    stdoutBytes: 0,
    stderrBytes: 0,
    stderr: "",
  };
}

export function planRun<R extends ReaderVerdict>(planFunction: RunPlanFunction<R>, prompt: RunPrompt): RunPlan<R> | string {
  let plan: RunPlan<R>;
  try {
    plan = planFunction(prompt);
  } catch (error) {
    return `the Run Plan function threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  return checkPlan(plan) ?? plan;
}

export function checkPlan(plan: unknown): string | undefined {
  const p = plan as Partial<RunPlan> | null;
  if (typeof p !== "object" || p === null) return "the Run Plan function returned no plan; return { args, stdin, outcome }";
  if (!Array.isArray(p.args) || !p.args.every((a) => typeof a === "string" && !a.includes("\0"))) {
    return "the plan's args are not a list of strings without NUL bytes; return args as string[]";
  }
  if (typeof p.stdin !== "string" && !(p.stdin instanceof Uint8Array)) return "the plan's stdin is neither a string nor bytes; return the prompt as stdin";
  if (typeof p.outcome !== "function") return "the plan's outcome is not a function; return a reader (stdout) => Promise<{ ok }>";
  return undefined;
}

export async function performRun<R extends ReaderVerdict>(ctx: PerformContext<R>): Promise<Outcome<R>> {
  const { runId, container, logger, masker } = ctx;
  const staging = container.staging;
  let dir: RunDirectory | undefined;
  if (staging !== undefined) {
    try {
      dir = await prepareRunDirectory({
        runtimeDir: staging.runtimeDir,
        runId,
        owner: container.owner ?? DEFAULT_OWNER,
        inputs: ctx.inputs ?? {},
        promptText: masker.mask(ctx.prompt.text),
        writableWork: staging.writableWork ?? false,
        agentUser: resolveAgentUser(container.user),
        secretFiles: ctx.secretFiles.map((file) => file.content),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const reason = error instanceof StagingError && error.kind === "invalid_input" ? "invalid_request" : "unavailable";
      return earlyOutcome<R>(runId, ctx.startedAt, masker, reason, message);
    }
  }
  // From here on, whatever happens, a staged Run's directory gets its record (or goes).
  const records: RecordStream[] = [];
  const outcome = await runStaged(dir, records);
  return dir === undefined ? outcome : finishRecord(outcome, dir, records);

  async function runStaged(runDir: RunDirectory | undefined, streams: RecordStream[]): Promise<Outcome<R>> {
    const early = (reason: EndReason, error: string) => earlyOutcome<R>(runId, ctx.startedAt, masker, reason, error);
    // After staging: a plan may rely on its workspace being there (and a test can make it vanish).
    const plan = planRun(ctx.planFunction, ctx.prompt);
    if (typeof plan === "string") return early("plan_error", plan);
    const stdin = typeof plan.stdin === "string" ? Buffer.from(plan.stdin, "utf8") : plan.stdin;
    if (stdin.length > MAX_STDIN_BYTES) {
      return early("input_limit", `the plan's stdin is ${stdin.length} bytes, over its limit of ${MAX_STDIN_BYTES} (MAX_STDIN_BYTES); send a shorter prompt or hand large inputs over as files`);
    }
    let stdoutRecord: RecordStream | undefined;
    let stderrRecord: RecordStream | undefined;
    if (runDir !== undefined) {
      if (plan.request !== undefined) {
        await writeAtomically(runDir.request, `${JSON.stringify(masker.maskDeep(plan.request), null, 2)}\n`).catch((error: unknown) => {
          logger.warn({ runId, err: masker.mask(String(error)) }, "request.json could not be written");
        });
      }
      stdoutRecord = createRecordStream(runDir.stdout, masker, MAX_STDOUT_BYTES);
      stderrRecord = createRecordStream(runDir.stderr, masker, MAX_STDERR_RECORD_BYTES);
      streams.push(stdoutRecord, stderrRecord);
    }
    let spec;
    try {
      spec = composeSpec(container, plan.args, runId, ctx.runEnv, ctx.secretFiles.map((file) => file.agentPath));
    } catch (error) {
      // Only what this Run added can fail here (a secret file's path clashing with a mount).
      return early("invalid_request", error instanceof Error ? error.message : String(error));
    }
    const command = renderCommand(spec, stdin, masker);
    logger.info({ runId, command: [command.command, ...command.redactedArgs] }, "run started");
    return executeRun({
      runId,
      spec,
      body: renderCreateBody(spec),
      plan,
      stdin,
      engine: ctx.engine,
      timeoutMs: ctx.timeoutSeconds * 1000,
      graceMs: ctx.graceMs,
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      logger,
      masker,
      startedAt: ctx.startedAt,
      ...(stdoutRecord === undefined ? {} : { onStdout: stdoutRecord.write }),
      ...(stderrRecord === undefined ? {} : { onStderr: stderrRecord.write }),
    });
  }

  async function finishRecord(result: Outcome<R>, runDir: RunDirectory, streams: RecordStream[]): Promise<Outcome<R>> {
    const keep = staging?.keepRuns ?? false;
    const logFailure = (what: string) => (error: unknown) => {
      logger.error({ runId, err: masker.mask(error instanceof Error ? error.message : String(error)) }, what);
    };
    // A secret file never outlives its Run, kept record or not.
    await rm(runDir.secrets, { recursive: true, force: true }).catch(logFailure("the Run's secret files could not be removed"));
    // Each step on its own: a record that cannot be written never costs the caller the Harvest.
    await Promise.all(streams.map((s) => s.close())).catch(logFailure("stdout.txt or stderr.txt could not be finished"));
    // The container is gone: nothing can change out/ while it is copied.
    if (ctx.harvestTo !== undefined && result.reason === "completed") {
      const harvested = await harvest(staging?.writableWork ? runDir.work : runDir.out, ctx.harvestTo).catch(
        (error: unknown): HarvestResult => ({
          ok: false,
          refusal: { reason: "io_error", entry: ".", message: `the Harvest failed: ${error instanceof Error ? error.message : String(error)}` },
        }),
      );
      result = harvested.ok
        ? { ...result, harvest: harvested }
        : { ...result, ok: false, reason: "harvest_refused", error: masker.mask(harvested.refusal.message), harvest: masker.maskDeep(harvested) };
    }
    if (keep) result = { ...result, runDirectory: runDir.root };
    try {
      await writeAtomically(runDir.outcome, `${JSON.stringify(masker.maskDeep(result), null, 2)}\n`);
      await writeAtomically(runDir.done, `${new Date().toISOString()}\n`);
    } catch (error) {
      logFailure("the Run record could not be finished")(error);
    }
    // Never lets a clean-up failure (a file the agent owns that we may not delete) rewrite the Outcome.
    if (!keep) await rm(runDir.root, { recursive: true, force: true }).catch(logFailure("the Run directory could not be removed; sweep() will try again"));
    return result;
  }
}
