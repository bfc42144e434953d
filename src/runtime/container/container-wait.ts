// Waits for the running container's end, as a race: normally the agent exits, its output ends and
// the reader finishes; once the Run is interrupted (timeout, cancel, a limit, a stall: stop.ts
// decides), only the exit is awaited. An attach stream that breaks its protocol kills the container.
// Invariant: stopping never waits on the reader, and the reader's stdout is ended whatever won.

import { describeEngineError } from "../../engine/index.js";
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
  const exited = ctx.engine.wait(id).then(
    () => tellExited(),
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
    reading.disarm();
    output.stdout.end();
  }
}
