// One Run's container, start to end, as a sequence: create (joined to its networks), attach before
// start (no early byte lost), start, write stdin and close it, read and wait, inspect, remove.
// Stopping is stop.ts's, output handling streams.ts's, the stall watchdog watchdog.ts's; this file
// only calls the steps in order.
// Whatever happens, it resolves with the facts and leaves no container of the Run behind.

import type { Logger } from "pino";
import type { ComposedSpec } from "../container/index.js";
import { describeEngineError, engineMessage, engineStatus, type ContainerStreams, type Engine } from "../engine/index.js";
import type { ExitFacts, ReaderVerdict, RunPlan } from "../plan/index.js";
import type { Masker } from "../redact/index.js";
import { signalOfExitCode, type ContainerFacts } from "./end-reason.js";
import { ENGINE_CLEANUP_TIMEOUT_MS, ENGINE_PROBE_INTERVAL_MS, ENGINE_PROBE_WINDOW_MS } from "./limits.js";

/** Signals that stop a container from outside (docker stop, docker kill, an engine shutting down). */
const OUTSIDE_SIGNALS = new Set(["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT"]);
import { bounded, createEngineDeadline, type RunStop } from "./stop.js";
import { readOutput, type RunOutput } from "./streams.js";
import { stallDetail, startWatchdog, type Watchdog } from "./watchdog.js";

export type ContainerRunContext<R extends ReaderVerdict> = {
  readonly runId: string;
  readonly spec: ComposedSpec;
  readonly plan: RunPlan<R>;
  readonly stdin: Uint8Array;
  readonly engine: Engine;
  readonly stop: RunStop;
  readonly graceMs: number;
  /** How long to wait for an engine that does not answer at all before giving up on it. */
  readonly abandonAfterMs: number;
  readonly logger: Logger;
  readonly masker: Masker;
  readonly onStdout?: (chunk: Uint8Array) => void;
  readonly onStderr?: (chunk: Uint8Array) => void;
  /** Printing nothing and using no CPU this long ends the Run as `stalled`; absent: no watchdog. */
  readonly stallSeconds?: number;
  /** Half of stallSeconds passed in silence; again only after activity and a new silence. */
  readonly onStallWarning?: (info: { readonly silentMs: number }) => void;
  /** Called once, the moment the container is seen not running (or given up on), before anything else of the Run ends. */
  readonly onExited?: () => void;
  /** Called as the watchdog starts, with what to call each time the agent's traffic is seen live elsewhere (the egress proxy). */
  readonly liveness?: (alive: () => void) => void;
};

export async function runContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>): Promise<ContainerFacts<R>> {
  const { runId, engine, logger, masker, spec, stop } = ctx;
  let id: string | undefined;
  let started = false;
  let output: RunOutput | undefined;
  let engineFailure: string | undefined;
  let readerThrew: string | undefined;
  let verdict: R | undefined;
  let exit: ExitFacts | undefined;
  /** The container was gone before this Run removed it: someone else did. */
  let removedFromOutside = false;
  /** The container died of a signal this Run did not send: a `docker stop`, or the engine going away. */
  let stoppedFromOutside: "by_someone" | "engine_gone" | undefined;
  let watchdog: Watchdog | undefined;
  const deadline = createEngineDeadline(ctx.abandonAfterMs);
  let exitTold = false;
  const tellExited = (): void => {
    if (exitTold) return;
    exitTold = true;
    try {
      ctx.onExited?.();
    } catch (error) {
      logger.warn({ runId, err: masker.mask(error instanceof Error ? error.message : String(error)) }, "onExited threw");
    }
  };

  try {
    await Promise.race([lifecycle(), deadline.passed]);
    if (deadline.hasPassed())
      engineFailure ??= `the engine did not answer within ${ctx.abandonAfterMs} ms of the Run's start (timeout + grace + ENGINE_ANSWER_MARGIN_MS)`;
  } catch (error) {
    engineFailure ??= describeEngineError("the Run", error, spec.image);
  } finally {
    tellExited();
    deadline.cancel();
    watchdog?.stop();
    if (started && !deadline.hasPassed() && id !== undefined) exit = await exitFacts(id);
    stop.containerExited();
    if (exit?.signal !== undefined && OUTSIDE_SIGNALS.has(exit.signal) && !exit.oomKilled && !stop.signalled()) {
      stoppedFromOutside = (await engineStillAnswers()) ? "by_someone" : "engine_gone";
    }
    if (id !== undefined || deadline.hasPassed()) await removeByName();
  }

  const interruption = stop.interruption();
  return {
    ...(interruption === undefined ? {} : { interruption: interruption.why, interruptionDetail: interruption.detail }),
    ...(engineFailure === undefined ? {} : { engineFailure }),
    ...(readerThrew === undefined ? {} : { readerThrew }),
    ...(verdict === undefined ? {} : { verdict }),
    ...(exit === undefined ? {} : { exit }),
    ...(removedFromOutside ? { removedFromOutside } : {}),
    ...(stoppedFromOutside === undefined ? {} : { stoppedFromOutside }),
    stdoutBytes: output?.stdoutBytes() ?? 0,
    stderrText: output?.stderr.text() ?? "",
    stderrBytes: output?.stderr.totalBytes() ?? 0,
  };

  async function lifecycle(): Promise<void> {
    if (stop.interruption() !== undefined) return;
    id = await create();
    if (id === undefined || stop.interruption() !== undefined) return;
    let streams: ContainerStreams;
    try {
      streams = await engine.attach(id);
    } catch (error) {
      engineFailure = describeEngineError("attach", error, spec.image);
      return;
    }
    output = readOutput(streams, {
      ...(ctx.onStdout === undefined ? {} : { onStdout: ctx.onStdout }),
      ...(ctx.onStderr === undefined ? {} : { onStderr: ctx.onStderr }),
      onBytes: () => watchdog?.output(),
      onOverflow: (detail) => stop.interrupt("output_limit", detail, true),
    });
    if (!(await start(id, streams))) return;
    watch(id, output);
    streams.stdin.end(ctx.stdin);
    await readAndWait(id, streams, output);
  }

  async function create(): Promise<string | undefined> {
    try {
      return await engine.create(spec);
    } catch (error) {
      engineFailure = describeEngineError("create", error, spec.image);
      // A refusal (4xx) created nothing; a lost answer may have created the container anyway.
      if ((engineStatus(error) ?? 500) >= 500) await removeByName();
      return undefined;
    }
  }

  async function start(containerId: string, streams: ContainerStreams): Promise<boolean> {
    try {
      await engine.start(containerId);
    } catch (error) {
      streams.close();
      engineFailure = describeEngineError("start", error, spec.image);
      return false;
    }
    started = true;
    stop.containerStarted({
      kill: (signal) => {
        engine.kill(containerId, signal).catch((error: unknown) => {
          logger.warn({ runId, signal, err: masker.mask(engineMessage(error)) }, "kill failed");
        });
      },
      stopSignal: spec.container.extra.stopSignal ?? "SIGTERM",
      graceMs: ctx.graceMs,
    });
    return true;
  }

  /** With stallSeconds: a Run that prints nothing and uses no CPU that long is stopped as stalled. */
  function watch(containerId: string, out: RunOutput): void {
    const seconds = ctx.stallSeconds;
    if (seconds === undefined || stop.interruption() !== undefined) return;
    watchdog = startWatchdog({
      stallMs: seconds * 1000,
      cpuNs: (signal) => engine.cpuUsage(containerId, signal),
      heldUp: out.heldUp,
      onWarning: ({ silentMs }) => {
        logger.warn({ runId, silentMs: Math.round(silentMs), stallSeconds: seconds }, "the agent has printed nothing and used no CPU for half its stall time");
        try {
          ctx.onStallWarning?.({ silentMs: Math.round(silentMs) });
        } catch (error) {
          logger.warn({ runId, err: masker.mask(error instanceof Error ? error.message : String(error)) }, "onStallWarning threw; the Run goes on");
        }
      },
      onStall: (silence) => {
        logger.warn({ runId, silentMs: Math.round(silence.silentMs), stallSeconds: seconds }, "the agent stalled; it is stopped");
        stop.interrupt("stalled", stallDetail(silence, seconds));
      },
      onReadingFailed: (error) => {
        logger.debug({ runId, err: masker.mask(engineMessage(error)) }, "the agent's CPU time could not be read; the stall clock starts over");
      },
    });
    void stop.interrupted.then(() => watchdog?.stop());
    ctx.liveness?.(() => watchdog?.alive());
  }

  /** Normally the agent exits, its output ends and the reader finishes. Interrupted, only the exit is awaited. */
  async function readAndWait(containerId: string, streams: ContainerStreams, out: RunOutput): Promise<void> {
    void streams.broken.then((why) => {
      engineFailure ??= `the engine broke its attach stream's protocol (${why}); nothing the agent printed after it can be trusted`;
      stop.killContainer();
    });
    const exited = engine.wait(containerId).then(
      () => tellExited(),
      (error: unknown) => {
        engineFailure ??= describeEngineError("wait", error, spec.image);
        streams.close();
      },
    );
    let exitGraceTimer: NodeJS.Timeout | undefined;
    const read = (async () => {
      try {
        verdict = await ctx.plan.outcome(out.stdout);
        if (typeof verdict !== "object" || verdict === null || typeof verdict.ok !== "boolean") {
          readerThrew = `it returned ${JSON.stringify(verdict)?.slice(0, 200)}, which has no boolean "ok"`;
          verdict = undefined;
        } else if (ctx.plan.exitGraceMs !== undefined && stop.interruption() === undefined) {
          // An interrupted Run's reader ends because its output was cut, not because the agent
          // answered: the stop's own grace (stop signal, then SIGKILL) governs, not the exit grace.
          exitGraceTimer = giveTimeToExit(ctx.plan.exitGraceMs);
        }
      } catch (error) {
        readerThrew = error instanceof Error ? error.message : String(error);
        stop.stopContainer();
      } finally {
        out.stdout.detach();
      }
    })();
    // Stopping never waits on the reader: once the Run is interrupted, the reader gets no more and
    // the output is drained, since the engine reports an exit only when the output has been read.
    const drained = stop.interrupted.then(() => out.drain());
    try {
      await Promise.race([Promise.all([exited, out.ended, read]), drained.then(() => exited)]);
    } finally {
      clearTimeout(exitGraceTimer);
      out.stdout.end();
    }
  }

  /** The agent has answered: it gets `ms` to exit on its own, then it is killed; its verdict stands. */
  function giveTimeToExit(ms: number): NodeJS.Timeout {
    return setTimeout(() => {
      logger.info({ runId, exitGraceMs: ms }, "the agent answered but had not exited within its exit grace; it was killed");
      stop.killContainer();
    }, ms);
  }

  async function exitFacts(containerId: string): Promise<ExitFacts | undefined> {
    try {
      const state = await bounded(engine.inspect(containerId), ENGINE_CLEANUP_TIMEOUT_MS, "inspect");
      if (state === undefined) {
        removedFromOutside = true;
        return undefined;
      }
      if (state.running) return undefined;
      const signal = signalOfExitCode(state.exitCode);
      return { code: state.exitCode, ...(signal === undefined ? {} : { signal }), oomKilled: state.oomKilled };
    } catch (error) {
      logger.warn({ runId, err: masker.mask(engineMessage(error)) }, "could not inspect the finished container");
      return undefined;
    }
  }

  /**
   * Whether the engine still answers a moment after the container died of a signal nobody here
   * sent: an engine that is shutting down (or restarting) stops its containers, then goes.
   */
  async function engineStillAnswers(): Promise<boolean> {
    // An engine shutting down finishes its own clean-up first: ask a few times over a short window.
    for (let waited = 0; waited < ENGINE_PROBE_WINDOW_MS; waited += ENGINE_PROBE_INTERVAL_MS) {
      await new Promise((resolve) => setTimeout(resolve, ENGINE_PROBE_INTERVAL_MS));
      const answered = await bounded(engine.ping(), ENGINE_PROBE_INTERVAL_MS * 4, "ping").then(
        () => true,
        () => false,
      );
      if (!answered) return false;
    }
    return true;
  }

  /** Removes the Run's container by its name, whether or not its id was ever known. */
  async function removeByName(): Promise<void> {
    await bounded(engine.remove(spec.name), ENGINE_CLEANUP_TIMEOUT_MS, "remove").catch((error: unknown) => {
      logger.error({ runId, err: masker.mask(engineMessage(error)) }, "container could not be removed; sweep() will remove it");
    });
  }
}
