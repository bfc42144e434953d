// The container's end as facts: the caller told once that it is over, then its exit code, signal
// and OOM as the engine reports them, and whether something outside this Run ended it (someone
// removed or stopped it, or the engine itself went away).
// Invariant: facts are read, never guessed: no exit without an inspect that answered, and a death by
// signal is someone else's doing only when this Run sent no signal and the kernel's OOM killer did not.

import { engineMessage, engineShownGone } from "../../engine/index.js";
import { scaledMs } from "../../liveness/index.js";
import type { ExitFacts, ReaderVerdict } from "../../plan/index.js";
import type { ContainerEnd, ContainerRunContext, ContainerRunState } from "./container-run-state.js";
import { signalOfExitCode } from "../end-reason.js";
import { ENGINE_CLEANUP_TIMEOUT_MS, ENGINE_PROBE_INTERVAL_MS, ENGINE_PROBE_WINDOW_MS } from "../limits.js";
import { bounded, type EngineDeadline } from "../stop.js";

/** Signals that stop a container from outside (docker stop, docker kill, an engine shutting down). */
const OUTSIDE_SIGNALS = new Set(["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT"]);

/** Calls the caller's onExited the first time it is called, and never again; a throw is logged. */
export function exitNotice<R extends ReaderVerdict>(ctx: ContainerRunContext<R>): () => void {
  let told = false;
  return () => {
    if (told) return;
    told = true;
    try {
      ctx.onExited?.();
    } catch (error) {
      ctx.logger.warn({ runId: ctx.runId, err: ctx.masker.mask(error instanceof Error ? error.message : String(error)) }, "onExited threw");
    }
  };
}

/**
 * How the container ended; only a started container of an engine not given up on is inspected, and
 * only when the engine's exit event did not already tell the agent's own exit.
 */
export async function collectEnd<R extends ReaderVerdict>(
  ctx: ContainerRunContext<R>,
  state: ContainerRunState<R>,
  deadline: EngineDeadline,
): Promise<ContainerEnd> {
  const { stop } = ctx;
  const told = state.exitEvent;
  const inspected =
    told !== undefined
      ? { exit: { code: told.exitCode, oomKilled: false } }
      : state.started && !deadline.hasPassed() && state.id !== undefined
        ? await inspectExit(ctx, state.id)
        : {};
  stop.containerExited();
  const exit = inspected.exit;
  if (exit?.signal !== undefined && OUTSIDE_SIGNALS.has(exit.signal) && !exit.oomKilled && !stop.signalled()) {
    return { ...inspected, stoppedFromOutside: (await engineStillAnswers(ctx)) ? "by_someone" : "engine_gone" };
  }
  return inspected;
}

async function inspectExit<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, id: string): Promise<ContainerEnd> {
  try {
    const state = await bounded(ctx.engine.inspect(id), ENGINE_CLEANUP_TIMEOUT_MS, "inspect");
    if (state === undefined) return { removedFromOutside: true };
    if (state.running) return {};
    const signal = signalOfExitCode(state.exitCode);
    const exit: ExitFacts = { code: state.exitCode, ...(signal === undefined ? {} : { signal }), oomKilled: state.oomKilled };
    return { exit };
  } catch (error) {
    ctx.logger.warn({ runId: ctx.runId, err: ctx.masker.mask(engineMessage(error)) }, "could not inspect the finished container");
    return {};
  }
}

/**
 * Whether the engine still answers a moment after the container died of a signal nobody here
 * sent: an engine that is shutting down (or restarting) stops its containers, then goes. It is gone
 * when a ping is refused (engineShownGone), or when it says nothing for the rest of the window (and
 * a ping's own bound at the least); a late answer within it is an answer. Neither bound is a user's
 * deadline: both stretch with the load. Only the words of a Run already ended hang on it.
 */
async function engineStillAnswers<R extends ReaderVerdict>(ctx: ContainerRunContext<R>): Promise<boolean> {
  // An engine shutting down finishes its own clean-up first: ask a few times over a short window.
  const windowMs = scaledMs(ENGINE_PROBE_WINDOW_MS);
  const pingMs = scaledMs(ENGINE_PROBE_INTERVAL_MS * 4);
  const started = performance.now();
  while (performance.now() - started < windowMs) {
    await new Promise((resolve) => setTimeout(resolve, ENGINE_PROBE_INTERVAL_MS));
    const pinged = ctx.engine.ping().then(
      () => "answers" as const,
      // The engine's own refusal of a ping is an engine that lives.
      (error: unknown) => (engineShownGone(error) === undefined ? ("answers" as const) : ("gone" as const)),
    );
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<"silent">(
      (resolve) => (timer = setTimeout(() => resolve("silent"), Math.max(windowMs - (performance.now() - started), pingMs))),
    );
    const reading = await Promise.race([pinged, silent]).finally(() => clearTimeout(timer));
    if (reading !== "answers") return false;
  }
  return true;
}
