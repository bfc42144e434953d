// A Run's container on a Docker engine, cold: the Run's own network and volumes made, its launcher
// (when tmpfs secrets need one) composed, the container run with its output into the record, its
// volumes read back; the warm path runs a member through the same runTheContainer. Invariant: what
// this made is undone before it returns, volumes first, then the network (the record is the caller's).

import { renderCommand, type ComposedSpec } from "../container/index.js";
import type { ReaderVerdict, RunPlan } from "../plan/index.js";
import { coldLaunchOf, type ColdLaunch } from "./pool/index.js";
import { runContainer, type ContainerRunContext } from "./container/index.js";
import type { ContainerFacts } from "./end-reason.js";
import { runNetworkName } from "./network/index.js";
import { closeNetwork, openNetwork } from "./run/index.js";
import { endEarly, maskedMessage, type LaunchedRun, type RunContext, type StepState, type StagedRun } from "./run/index.js";
import { closeVolumes, collectVolumes, openVolumes } from "./run/index.js";

type PlannedStdin<R extends ReaderVerdict> = { readonly plan: RunPlan<R>; readonly stdin: Uint8Array };

/** The networks a Run's container joins on an engine: its own, when it has one. */
export function engineNetworksOf<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): readonly string[] | undefined {
  return ctx.network === undefined ? undefined : [runNetworkName(ctx.runId)];
}

export async function launchContainer<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  spec: ComposedSpec,
  planned: PlannedStdin<R>,
  staged: StagedRun | undefined,
): Promise<LaunchedRun<R>> {
  try {
    const noNetwork = await openNetwork(ctx, state);
    if (noNetwork !== undefined) return { outcome: noNetwork };
    const noVolumes = await openVolumes(ctx, state, staged);
    if (noVolumes !== undefined) return { outcome: noVolumes };
    let launcher: ColdLaunch | undefined;
    try {
      launcher = coldLaunchOf(spec, ctx.tmpfsSecrets);
    } catch (error) {
      return { outcome: endEarly(ctx, "invalid_request", maskedMessage(ctx, error)) };
    }
    const facts = await runTheContainer(ctx, state, spec, planned, launcher);
    await collectVolumes(ctx, state, staged);
    return ctx.pool === undefined ? { facts } : { facts, warm: false };
  } finally {
    await closeVolumes(ctx, state);
    await closeNetwork(ctx, state);
  }
}

/**
 * The container run, its output into the record as it comes; its facts whatever happened. `served`:
 * the container is made from another spec than the Run's (a pool member's, claimed: `warm`; or the
 * launcher's, cold, its claim before stdin).
 */
export function runTheContainer<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  spec: ComposedSpec,
  planned: PlannedStdin<R>,
  served?: { readonly spec: ComposedSpec; readonly warm: NonNullable<ContainerRunContext<R>["warm"]> } | ColdLaunch,
): Promise<ContainerFacts<R>> {
  const { runId, logger, masker, network } = ctx;
  const { record } = state;
  const command = renderCommand(spec, planned.stdin, masker);
  logger.info({ runId, command: [command.command, ...command.redactedArgs] }, "run started");
  return runContainer({
    runId,
    ...(ctx.trace === undefined ? {} : { trace: ctx.trace }),
    spec: served?.spec ?? spec,
    ...(served === undefined || !("warm" in served) ? {} : { warm: served.warm }),
    plan: planned.plan,
    stdin: served !== undefined && "claim" in served ? Buffer.concat([served.claim, planned.stdin]) : planned.stdin,
    engine: ctx.engine,
    stop: state.stop,
    graceMs: ctx.graceMs,
    ownDeadlineMs: ctx.timeoutSeconds * 1000 + ctx.graceMs,
    logger,
    masker,
    ...(record === undefined ? {} : { onStdout: record.onStdout, onStderr: record.onStderr }),
    ...(ctx.stallSeconds === undefined ? {} : { stallSeconds: ctx.stallSeconds }),
    ...(ctx.onStallWarning === undefined ? {} : { onStallWarning: ctx.onStallWarning }),
    ...(network?.onAgentGone === undefined ? {} : { onExited: network.onAgentGone }),
    ...(network?.liveness === undefined ? {} : { liveness: network.liveness }),
  });
}
