// Performs one Run through the Engine API: create, attach before start (no early output lost),
// start, write stdin and close it, stream stdout to the reader, wait, inspect, and always remove.
// Whatever happens, this resolves with an Outcome and leaves no container of the Run behind.

import type { ContainerCreateOptions } from "dockerode";
import type { Logger } from "pino";
import type { ExitFacts, Outcome, ReaderVerdict, RunPlan } from "../plan/index.js";
import type { ComposedSpec } from "./compose.js";
import type { Engine } from "./engine.js";
import { engineMessage, engineStatus } from "./engine.js";
import { createFrameDemuxer, STDERR_FRAME, STDOUT_FRAME } from "./frames.js";
import { createCappedBytes } from "./capped-bytes.js";
import { createStdoutChannel } from "./stdout-channel.js";
import { ENGINE_ANSWER_MARGIN_MS, ENGINE_CLEANUP_TIMEOUT_MS, MAX_STDERR_RECORD_BYTES, MAX_STDOUT_BYTES } from "./limits.js";
import type { Masker } from "./redact.js";
import { decideReason, describeFailure, signalOfExitCode, type Interruption, type Observed } from "./settle.js";

export type RunContext<R extends ReaderVerdict> = {
  readonly runId: string;
  readonly spec: ComposedSpec;
  readonly body: ContainerCreateOptions;
  readonly plan: RunPlan<R>;
  readonly stdin: Uint8Array;
  readonly engine: Engine;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  readonly masker: Masker;
  readonly startedAt: number;
  /** Sees every stdout byte that is accepted (under the cap), as it arrives; for the Run record. */
  readonly onStdout?: (chunk: Uint8Array) => void;
  /** Sees every stderr byte as it arrives. */
  readonly onStderr?: (chunk: Uint8Array) => void;
};

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOENT", "EACCES", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);

/** Words for a failed Engine API call, saying what to do where we know. */
export function describeEngineError(step: string, error: unknown, image: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) {
    return `the container engine is unreachable (${code} during ${step}); start dockerd or point DOCKER_HOST at a running engine`;
  }
  if (step === "create" && engineStatus(error) === 404) {
    return `image ${JSON.stringify(image)} is not on this engine (${engineMessage(error)}); build or load it first, nothing is pulled`;
  }
  return `the engine refused ${step}: ${engineMessage(error)}`;
}

/** Rejects when `promise` has not settled within `ms`; the engine has no deadline of its own. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the engine did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export async function executeRun<R extends ReaderVerdict>(ctx: RunContext<R>): Promise<Outcome<R>> {
  const { runId, engine, logger, masker, spec } = ctx;
  const stderr = createCappedBytes(MAX_STDERR_RECORD_BYTES);
  let stdoutBytes = 0;
  let containerId: string | undefined;
  let running = false;
  let interruption: Interruption | undefined;
  let interruptionDetail: string | undefined;
  let engineFailure: string | undefined;
  let readerThrew: string | undefined;
  let verdict: R | undefined;
  let exit: ExitFacts | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  let onInterrupt!: () => void;
  const interrupted = new Promise<void>((resolve) => (onInterrupt = resolve));

  const kill = (signal: string): void => {
    if (containerId === undefined) return;
    engine.kill(containerId, signal).catch((error: unknown) => {
      logger.warn({ runId, signal, err: masker.mask(engineMessage(error)) }, "kill failed");
    });
  };
  /** SIGTERM, then SIGKILL after the grace period; at once when `now`. */
  const stopContainer = (now: boolean): void => {
    if (!running || stopping) return;
    stopping = true;
    if (now || ctx.graceMs === 0) return kill("SIGKILL");
    kill(spec.container.extra.stopSignal ?? "SIGTERM");
    graceTimer = setTimeout(() => kill("SIGKILL"), ctx.graceMs);
  };
  const interrupt = (why: Interruption, detail: string, now = false): void => {
    if (interruption !== undefined) return;
    interruption = why;
    interruptionDetail = detail;
    onInterrupt();
    stopContainer(now);
  };

  const timeoutTimer = setTimeout(() => interrupt("timeout", `the Run timed out after ${ctx.timeoutMs / 1000} s`), ctx.timeoutMs);
  const onAbort = (): void => interrupt("cancelled", "the Run was cancelled by the caller");
  if (ctx.signal?.aborted) onAbort();
  else ctx.signal?.addEventListener("abort", onAbort, { once: true });

  // The timeout stops the agent; this stops waiting for an engine that no longer answers at all.
  const abandonAfterMs = ctx.timeoutMs + ctx.graceMs + ENGINE_ANSWER_MARGIN_MS;
  let abandoned = false;
  let abandonTimer: NodeJS.Timeout | undefined;
  const abandon = new Promise<void>((resolve) => {
    abandonTimer = setTimeout(() => {
      abandoned = true;
      resolve();
    }, abandonAfterMs);
  });
  const work = async (): Promise<void> => {
    if (interruption === undefined) {
      try {
        containerId = await engine.create(ctx.body);
      } catch (error) {
        engineFailure = describeEngineError("create", error, spec.image);
        // A refusal (4xx) created nothing; a lost answer may have created the container anyway.
        if ((engineStatus(error) ?? 500) >= 500) await removeByName();
      }
    }
    if (containerId !== undefined && interruption === undefined && engineFailure === undefined) {
      await runContainer(containerId);
    }
  };
  try {
    await Promise.race([work(), abandon]);
    if (abandoned) engineFailure ??= `the engine did not answer within ${abandonAfterMs} ms of the Run's start (timeout + grace + ENGINE_ANSWER_MARGIN_MS)`;
  } catch (error) {
    engineFailure ??= describeEngineError("the Run", error, spec.image);
  } finally {
    clearTimeout(timeoutTimer);
    clearTimeout(abandonTimer);
    ctx.signal?.removeEventListener("abort", onAbort);
    if (running && !abandoned && containerId !== undefined) exit = await exitFacts(containerId);
    clearTimeout(graceTimer);
    if (containerId !== undefined || abandoned) await removeByName();
  }

  const observed: Observed = {
    ...(interruption === undefined ? {} : { interruption }),
    ...(interruptionDetail === undefined ? {} : { interruptionDetail }),
    ...(engineFailure === undefined ? {} : { engineFailure }),
    ...(readerThrew === undefined ? {} : { readerThrew }),
    ...(verdict === undefined ? {} : { verdict }),
    ...(exit === undefined ? {} : { exit }),
    stderr: maskedStderr(),
  };
  const reason = decideReason(observed);
  const ok = reason === "completed";
  if (ok && exit !== undefined && exit.code !== 0) {
    logger.warn({ runId, exit }, "the reader said ok but the agent exited non-zero");
  }
  return {
    runId,
    ok,
    reason,
    ...(ok ? {} : { error: masker.mask(describeFailure(observed)) }),
    ...(exit === undefined ? {} : { exit }),
    durationMs: Math.round(performance.now() - ctx.startedAt),
    ...(verdict === undefined ? {} : { result: masker.maskDeep(verdict) }),
    stdoutBytes,
    stderrBytes: stderr.totalBytes(),
    stderr: observed.stderr,
  };

  /** Stderr as kept, masked; when it was cut, a secret may straddle the cut, so its tail goes too. */
  function maskedStderr(): string {
    const masked = masker.mask(stderr.text());
    if (stderr.totalBytes() <= MAX_STDERR_RECORD_BYTES) return masked;
    return masked.slice(0, Math.max(0, masked.length - Math.max(0, masker.longest() - 1)));
  }

  /** Removes the Run's container by its name, whether or not its id was ever known. */
  async function removeByName(): Promise<void> {
    await bounded(engine.remove(spec.name), ENGINE_CLEANUP_TIMEOUT_MS, "remove").catch((error: unknown) => {
      logger.error({ runId, err: masker.mask(engineMessage(error)) }, "container could not be removed; sweep() will remove it");
    });
  }

  async function exitFacts(id: string): Promise<ExitFacts | undefined> {
    try {
      const state = await bounded(engine.inspect(id), ENGINE_CLEANUP_TIMEOUT_MS, "inspect");
      if (state.running) return undefined;
      const signal = signalOfExitCode(state.exitCode);
      return { code: state.exitCode, ...(signal === undefined ? {} : { signal }), oomKilled: state.oomKilled };
    } catch (error) {
      logger.warn({ runId, err: masker.mask(engineMessage(error)) }, "could not inspect the finished container");
      return undefined;
    }
  }

  async function runContainer(id: string): Promise<void> {
    for (const network of spec.networks.slice(1)) await engine.connectNetwork(id, network);
    const stream = await engine.attach(id);
    const channel = createStdoutChannel(() => stream.resume());
    const streamEnded = new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", (error: NodeJS.ErrnoException) => {
        // A closed stdin after the agent exited is expected; anything else is logged, not fatal.
        if (error.code !== "EPIPE") logger.debug({ runId, err: error.message }, "attach stream error");
        resolve();
      });
    }).then(() => channel.end());
    let overflowed = false;
    stream.on(
      "data",
      createFrameDemuxer((kind, payload) => {
        if (kind === STDERR_FRAME) {
          stderr.push(payload);
          return ctx.onStderr?.(payload);
        }
        if (kind !== STDOUT_FRAME || overflowed) return;
        const room = MAX_STDOUT_BYTES - stdoutBytes;
        stdoutBytes += payload.length;
        if (payload.length > room) {
          overflowed = true;
          if (room > 0) {
            channel.push(payload.subarray(0, room));
            ctx.onStdout?.(payload.subarray(0, room));
          }
          channel.end();
          interrupt("output_limit", `stdout passed its limit of ${MAX_STDOUT_BYTES} bytes (MAX_STDOUT_BYTES) and the agent was killed`, true);
          return;
        }
        ctx.onStdout?.(payload);
        if (!channel.push(payload)) stream.pause();
      }),
    );

    try {
      await engine.start(id);
    } catch (error) {
      stream.destroy();
      engineFailure = describeEngineError("start", error, spec.image);
      return;
    }
    running = true;
    if (interruption !== undefined) stopContainer(interruption === "output_limit");
    stream.end(ctx.stdin);

    const exited = engine.wait(id).then(
      () => undefined,
      (error: unknown) => {
        engineFailure ??= describeEngineError("wait", error, spec.image);
        stream.destroy();
      },
    );
    const read = (async () => {
      try {
        verdict = await ctx.plan.outcome(channel);
        if (typeof verdict !== "object" || verdict === null || typeof verdict.ok !== "boolean") {
          readerThrew = `it returned ${JSON.stringify(verdict)?.slice(0, 200)}, which has no boolean "ok"`;
          verdict = undefined;
        }
      } catch (error) {
        readerThrew = error instanceof Error ? error.message : String(error);
        stopContainer(false);
      } finally {
        channel.detach();
      }
    })();
    // Normally: the agent exits, its output ends, the reader finishes. Interrupted: once the
    // stopped container has exited, stop waiting for a reader or a stream that may never end.
    await Promise.race([Promise.all([exited, streamEnded, read]), interrupted.then(() => exited)]);
    channel.end();
  }
}
