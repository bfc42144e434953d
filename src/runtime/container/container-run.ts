// One Run's container, start to end, as a sequence: create (joined to its networks), attach before
// start (no early byte lost), start, write stdin and close it, read and wait, inspect, remove.
// Each step is its own module (container-create, -start, -watch, -wait, -exit, -remove); they share
// only the state in container-run-state.ts. This file only calls the steps in order.
// Whatever happens, it resolves with the facts and leaves no container of the Run behind (a pool
// member's is removed with the rest of the member by its pool's discard, just after the Outcome).

import { describeEngineError } from "../../engine/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import { attachContainer, createContainer, outputOf } from "./container-create.js";
import { collectEnd, exitNotice } from "./container-exit.js";
import { removeContainer } from "./container-remove.js";
import { containerFacts, createContainerRunState, type ContainerRunContext, type ContainerRunState } from "./container-run-state.js";
import { startContainer, startedContainer } from "./container-start.js";
import { waitForEnd } from "./container-wait.js";
import { watchContainer } from "./container-watch.js";
import type { ContainerFacts } from "../end-reason.js";
import { ENGINE_ANSWER_MARGIN_MS } from "../limits.js";
import { createEngineDeadline } from "../stop.js";
import { tracedStep } from "../traced-step.js";

export type { ContainerRunContext } from "./container-run-state.js";

export async function runContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>): Promise<ContainerFacts<R>> {
  const state = createContainerRunState<R>();
  const deadline = createEngineDeadline(ctx.ownDeadlineMs, ENGINE_ANSWER_MARGIN_MS);
  const tellExited = exitNotice(ctx);
  try {
    await Promise.race([lifecycle(ctx, state, tellExited), deadline.passed]);
    if (deadline.hasPassed()) state.engineFailure ??= `the engine did not answer within ${deadline.said()}`;
  } catch (error) {
    state.engineFailure ??= describeEngineError("the Run", error, ctx.spec.image);
  } finally {
    tellExited();
    deadline.cancel();
    state.watchdog?.stop();
    state.end = await collectEnd(ctx, state, deadline);
    // A pool member's container goes with the rest of the member, after the Outcome, in the
    // background (the pool's discard; close() waits for it, the sweep takes what a crash left).
    if (ctx.warm === undefined && (state.id !== undefined || deadline.hasPassed())) await tracedStep(ctx.trace, "remove", () => removeContainer(ctx));
  }
  return containerFacts(state, ctx.stop);
}

/** The steps while the engine answers; each returns early when the Run was interrupted or a step failed. */
async function lifecycle<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, state: ContainerRunState<R>, tellExited: () => void): Promise<void> {
  if (ctx.stop.interruption() !== undefined) return;
  if (ctx.warm !== undefined) return claimed(ctx, state, ctx.warm, tellExited);
  const created = await tracedStep(ctx.trace, "create", async () => {
    state.id = await createContainer(ctx, state);
    if (state.id === undefined || ctx.stop.interruption() !== undefined) return undefined;
    return attachContainer(ctx, state, state.id);
  });
  if (created === undefined) return;
  const container = created;
  state.output = container.output;
  if (!(await tracedStep(ctx.trace, "start", () => startContainer(ctx, state, container)))) return;
  await tracedStep(ctx.trace, "stream", async () => {
    watchContainer(ctx, state, container);
    container.streams.stdin.end(ctx.stdin);
    await waitForEnd(ctx, state, container, tellExited);
  });
}

/** A warm Run: the member runs already; from its claim on it is this Run's container, read, watched and waited for the same way. */
async function claimed<R extends ReaderVerdict>(
  ctx: ContainerRunContext<R>,
  state: ContainerRunState<R>,
  warm: NonNullable<ContainerRunContext<R>["warm"]>,
  tellExited: () => void,
): Promise<void> {
  state.id = warm.containerId;
  const container = { id: warm.containerId, streams: warm.streams, output: outputOf(ctx, state, warm.streams) };
  state.output = container.output;
  startedContainer(ctx, state, warm.containerId);
  await tracedStep(ctx.trace, "stream", async () => {
    watchContainer(ctx, state, container);
    warm.streams.stdin.write(warm.claim);
    container.streams.stdin.end(ctx.stdin);
    warm.claimed();
    await waitForEnd(ctx, state, container, tellExited);
  });
}
