// The Run's own network as a step of the Run: made, with its member attached, before the Run's
// volumes and container; removed after them, whatever happened.
// Invariant: only a network this Run made is removed; one that cannot be is the sweep's, never the Outcome's.

import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import { ownershipLabels } from "../ownership/index.js";
import { closeRunNetwork, openRunNetwork } from "../network/index.js";
import { endEarly, maskedMessage, type RunContext, type StepState } from "./run-state.js";

/** The Outcome of a Run whose network the engine refused; undefined once it exists (or the Run has none of its own). */
export async function openNetwork<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState): Promise<Outcome<R> | undefined> {
  if (ctx.network === undefined) return undefined;
  const opened = await openRunNetwork(ctx.engine, ctx.runId, ctx.network, ownershipLabels(ctx.ownership), ctx.owner, ctx.addresses, state.stop.signal);
  if ("refused" in opened) {
    // Its deadline or its caller's cancel came while it waited its turn: the Run ends for that.
    const ended = state.stop.interruption();
    return ended === undefined ? endEarly(ctx, "unavailable", opened.refused) : endEarly(ctx, ended.why, ended.detail);
  }
  state.networkOpen = true;
  state.networkSubnet = opened.subnet;
  return undefined;
}

export async function closeNetwork<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState): Promise<void> {
  if (!state.networkOpen) return;
  // Its subnet is free once the network is gone; one left for the sweep is skipped a while instead.
  await closeRunNetwork(ctx.engine, ctx.runId, state.networkSubnet, ctx.addresses).catch((error: unknown) => {
    ctx.logger.error({ runId: ctx.runId, err: maskedMessage(ctx, error) }, "the Run's network could not be removed; sweep() will remove it");
  });
}
