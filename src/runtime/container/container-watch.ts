// Puts the stall watchdog (watchdog.ts) on a started container: it reads the container's CPU time,
// hears of its output and of its traffic seen live elsewhere, and stops the Run as `stalled`.
// Invariant: no watchdog without stallSeconds or on a Run already interrupted; it stops at the
// Run's first interruption; a caller's onStallWarning that throws is logged and the Run goes on.

import { engineMessage } from "../../engine/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import type { AttachedContainer } from "./container-create.js";
import type { ContainerRunContext, ContainerRunState } from "./container-run-state.js";
import { stallDetail, startWatchdog } from "./watchdog.js";

/** With stallSeconds: a Run that prints nothing and uses no CPU that long is stopped as stalled. */
export function watchContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, state: ContainerRunState<R>, container: AttachedContainer): void {
  const { engine, logger, masker, runId, stop } = ctx;
  const { id, output } = container;
  const seconds = ctx.stallSeconds;
  if (seconds === undefined || stop.interruption() !== undefined) return;
  state.watchdog = startWatchdog({
    stallMs: seconds * 1000,
    cpuNs: (signal) => engine.cpuUsage(id, signal),
    heldUp: output.heldUp,
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
  void stop.interrupted.then(() => state.watchdog?.stop());
  ctx.liveness?.(() => state.watchdog?.alive());
}
