// Creating the Run's container (joined to its networks by the composed spec) and attaching to it
// before it starts, with its output already being read: no byte the agent prints is lost.
// Invariant: a create the engine refused (4xx) made nothing; one whose answer was lost may have
// made the container anyway, so it is removed by name at once.

import { describeEngineError, engineStatus, type ContainerStreams } from "../../engine/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import type { ContainerRunContext, ContainerRunState } from "./container-run-state.js";
import { removeContainer } from "./container-remove.js";
import { readOutput, type RunOutput } from "./streams.js";

/** The new container's id; undefined when it was not created (the failure is in the state). */
export async function createContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, state: ContainerRunState<R>): Promise<string | undefined> {
  try {
    return await ctx.engine.create(ctx.spec);
  } catch (error) {
    state.engineFailure = describeEngineError("create", error, ctx.spec.image);
    if ((engineStatus(error) ?? 500) >= 500) await removeContainer(ctx);
    return undefined;
  }
}

/** A created container the Run is attached to, its output read from the first byte. */
export type AttachedContainer = {
  readonly id: string;
  readonly streams: ContainerStreams;
  readonly output: RunOutput;
};

/** Undefined when the attach failed (the failure is in the state). */
export async function attachContainer<R extends ReaderVerdict>(
  ctx: ContainerRunContext<R>,
  state: ContainerRunState<R>,
  id: string,
): Promise<AttachedContainer | undefined> {
  let streams: ContainerStreams;
  try {
    streams = await ctx.engine.attach(id);
  } catch (error) {
    state.engineFailure = describeEngineError("attach", error, ctx.spec.image);
    return undefined;
  }
  return { id, streams, output: outputOf(ctx, state, streams) };
}

/** The container's output, read from now on: the record, the watchdog and the stdout cap see every byte. */
export function outputOf<R extends ReaderVerdict>(
  ctx: ContainerRunContext<R>,
  state: ContainerRunState<R>,
  streams: Pick<ContainerStreams, "stdout" | "stderr">,
): RunOutput {
  return readOutput(streams, {
    ...(ctx.onStdout === undefined ? {} : { onStdout: ctx.onStdout }),
    ...(ctx.onStderr === undefined ? {} : { onStderr: ctx.onStderr }),
    // The watchdog starts after the container does; a byte before it is no news to it.
    onBytes: () => state.watchdog?.output(),
    onOverflow: (detail) => ctx.stop.interrupt("output_limit", detail, true),
  });
}
