// Starting the Run's container, and handing the Run's stop the means to end it (its stop signal,
// then SIGKILL after the grace): an interruption already here, or still to come, then reaches it.
// Invariant: `started` is set only once the engine accepted the start; a refused start closes the
// attach streams, so nothing waits on output that will never come.

import { describeEngineError, engineMessage } from "../../engine/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import type { AttachedContainer } from "./container-create.js";
import type { ContainerRunContext, ContainerRunState } from "./container-run-state.js";

/** Whether the container started; when not, the failure is in the state. */
export async function startContainer<R extends ReaderVerdict>(
  ctx: ContainerRunContext<R>,
  state: ContainerRunState<R>,
  container: AttachedContainer,
): Promise<boolean> {
  const { engine } = ctx;
  const { id, streams } = container;
  try {
    await engine.start(id);
  } catch (error) {
    streams.close();
    state.engineFailure = describeEngineError("start", error, ctx.spec.image);
    return false;
  }
  startedContainer(ctx, state, id);
  return true;
}

/** The container runs: the Run's stop may now reach it (its stop signal, then SIGKILL after the grace). */
export function startedContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, state: ContainerRunState<R>, id: string): void {
  const { engine, logger, masker, runId } = ctx;
  state.started = true;
  ctx.stop.containerStarted({
    kill: (signal) => {
      engine.kill(id, signal).catch((error: unknown) => {
        logger.warn({ runId, signal, err: masker.mask(engineMessage(error)) }, "kill failed");
      });
    },
    stopSignal: ctx.spec.container.extra.stopSignal ?? "SIGTERM",
    graceMs: ctx.graceMs,
  });
}
