// Waits for the running container's end, as a race: normally the agent exits, its output ends and
// the reader finishes; once the Run is interrupted (timeout, cancel, a limit, a stall: stop.ts
// decides), only the exit is awaited. An attach stream that breaks its protocol kills the container.
// The exit is the engine's first word of it: its exit event when the agent ended on its own (the
// engine releases the container's networks and mounts before `wait` answers), else `wait`.
// Invariant: stopping never waits on the reader, and the reader's stdout is ended whatever won.

import { describeEngineError, type ContainerExitEvent } from "../../engine/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import type { AttachedContainer } from "./container-create.js";
import { readVerdict } from "./container-reader.js";
import type { ContainerRunContext, ContainerRunState } from "./container-run-state.js";

export async function waitForEnd<R extends ReaderVerdict>(
  ctx: ContainerRunContext<R>,
  state: ContainerRunState<R>,
  container: AttachedContainer,
  tellExited: () => void,
): Promise<void> {
  const { id, streams, output } = container;
  void streams.broken.then((why) => {
    state.engineFailure ??= `the engine broke its attach stream's protocol (${why}); nothing the agent printed after it can be trusted`;
    ctx.stop.killContainer();
  });
  const listening = new AbortController();
  const exited = Promise.race([ctx.engine.wait(id).then(() => undefined), ownExitTold(ctx, id, listening.signal)]).then(
    (told) => {
      if (told !== undefined) state.exitEvent = told;
      tellExited();
    },
    (error: unknown) => {
      state.engineFailure ??= describeEngineError("wait", error, ctx.spec.image);
      streams.close();
    },
  );
  const reading = readVerdict(ctx, state, output);
  // Once the Run is interrupted, the reader gets no more and the output is drained, since the
  // engine reports an exit only when the output has been read.
  const drained = ctx.stop.interrupted.then(() => output.drain());
  try {
    await Promise.race([Promise.all([exited, output.ended, reading.done]), drained.then(() => exited)]);
  } finally {
    listening.abort();
    reading.disarm();
    output.stdout.end();
  }
}

/**
 * The exit the engine's event tells, when it is the agent's own: a code under 128 and no OOM. A death
 * by a signal, or out of memory, is waited for and inspected (who sent it is asked of the engine
 * then); so is every exit of an engine that tells none. Never settles otherwise.
 */
function ownExitTold<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, id: string, signal: AbortSignal): Promise<ContainerExitEvent> {
  // A fresh promise each time: one shared by every Run would keep each race's reaction for ever.
  const untold = new Promise<never>(() => undefined);
  const told = ctx.engine.exitEvent?.(id, signal);
  if (told === undefined) return untold;
  return told.then(
    (exit) => (exit !== undefined && exit.exitCode < 128 && !exit.oomKilled ? exit : untold),
    () => untold,
  );
}
