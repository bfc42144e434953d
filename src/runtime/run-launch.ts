// A Run from its plan to the Outcome its container's end gives: plan, open the record, compose, then
// a pool member's claim (warm) or the Run Backend's launch (cold: a container and what it needs on an
// engine, container-launch.ts; a Pod, pod-launch.ts), the end reason.
// launchRun only calls those steps in order; each returns early with the Outcome that says why.
// Invariant: whatever happens, what the steps made is undone before it returns: what the backend
// made (volumes, then the network) by the backend, then the record's open streams.

import type { ComposedSpec } from "../container/index.js";
import type { Outcome, ReaderVerdict } from "../plan/index.js";
import { composeRun, containerDeadlineSeconds } from "./run/index.js";
import { runTheContainer } from "./container-launch.js";
import { outcomeOf, type ContainerFacts } from "./end-reason.js";
import { ownershipLabels } from "./ownership/index.js";
import { planRun, type PlannedRun } from "./run/index.js";
import { openRecord } from "./run/index.js";
import { tellPeer } from "./network/index.js";
import { claimOf } from "./run/index.js";
import { encodeClaim } from "./pool/index.js";
import type { Member } from "./pool/index.js";
import { endEarly, maskedMessage, timeLeftMs, type RunContext, type StepState, type StagedRun } from "./run/index.js";
import { runVolumeNames } from "./run/index.js";

type Planned<R extends ReaderVerdict> = Extract<PlannedRun<R>, { readonly ok: true }>;

export async function launchRun<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState, staged?: StagedRun, member?: Member): Promise<Outcome<R>> {
  // After staging: a plan may rely on its workspace being there.
  const planned = planRun(ctx.planFunction, ctx.prompt, { runId: ctx.runId, mask: ctx.masker.maskDeep });
  if (!planned.ok) return endEarly(ctx, planned.reason, planned.error);
  if (staged !== undefined) state.record = await openRecord(staged.directory, planned.plan.request, ctx);
  try {
    const runEnv = await envOfRun(ctx, member);
    if ("outcome" in runEnv) return runEnv.outcome;
    const composed = compose(ctx, planned, staged, runEnv.env);
    if (!composed.ok) return composed.outcome;
    if (member !== undefined) return await launchWarm(ctx, state, composed.spec, planned, member);
    // Cold: the backend makes what the Run's container needs (a network, volumes; or a Pod) and undoes it.
    const launched = await ctx.backend.launch(ctx, state, composed.spec, planned, staged);
    return "outcome" in launched ? launched.outcome : endReason(ctx, launched.facts, launched.warm);
  } finally {
    await state.record?.closeStreams();
  }
}

type Composed<R extends ReaderVerdict> = { readonly ok: true; readonly spec: ComposedSpec } | { readonly ok: false; readonly outcome: Outcome<R> };

/**
 * The Run's environment: the caller's, and what envAtClaim adds now that the Run knows its member
 * (offered the environment of the member's head start), masked from here on like the rest.
 */
async function envOfRun<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  member: Member | undefined,
): Promise<{ readonly env: Readonly<Record<string, string>> } | { readonly outcome: Outcome<R> }> {
  if (ctx.envAtClaim === undefined) return { env: ctx.runEnv };
  let added: Readonly<Record<string, string>>;
  try {
    added = await ctx.envAtClaim(member?.headStart?.runEnv);
  } catch (error) {
    return { outcome: endEarly(ctx, "unavailable", maskedMessage(ctx, error)) };
  }
  for (const value of Object.values(added)) ctx.masker.add(value);
  return { env: { ...ctx.runEnv, ...added } };
}

/** The Run's composed spec: the declaration, its plan, its labels, its own network and volumes. */
function compose<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  planned: Planned<R>,
  staged: StagedRun | undefined,
  runEnv: Readonly<Record<string, string>>,
): Composed<R> {
  const volumes = runVolumeNames(ctx, staged);
  // The Run's own network, as its backend names it (a Pod has none: its reach is its NetworkPolicy).
  const networks = ctx.backend.networksOf(ctx);
  if (ctx.runFiles === "engine" && ctx.secretFiles.length > 0) {
    return {
      ok: false,
      outcome: endEarly(
        ctx,
        "invalid_request",
        `runFiles "engine" mounts nothing of this host's disk, and this Run has ${ctx.secretFiles.length} secret file(s), which are bound from it; give the credential in the Run's env, or use runFiles "disk"`,
      ),
    };
  }
  try {
    const spec = composeRun(ctx.container, {
      runId: ctx.runId,
      planArgs: planned.plan.args,
      runEnv,
      secretFiles: ctx.secretFiles,
      labels: ownershipLabels(ctx.ownership),
      // What is left of the Run's timeout (staging took some): the container's own timer ends it then.
      deadlineSeconds: containerDeadlineSeconds(timeLeftMs(ctx)),
      ...(ctx.sessionStore === undefined ? {} : { sessionAgentPath: ctx.sessionStore.agentPath }),
      ...(networks === undefined ? {} : { networks }),
      ...(volumes === undefined ? {} : { volumes }),
    });
    const bound = spec.mounts.find((mount) => mount.Type === "bind");
    // Through the engine, a bind of this disk would need the engine to share it: never composed, and checked here.
    if (ctx.runFiles === "engine" && bound !== undefined)
      throw new Error(`runFiles "engine" composed a bind of this host's disk at ${bound.Target}; report this`);
    return { ok: true, spec };
  } catch (error) {
    // Only what this Run added can fail here (a secret file's path clashing with a mount).
    return { ok: false, outcome: endEarly(ctx, "invalid_request", error instanceof Error ? error.message : String(error)) };
  }
}

/**
 * A warm Run: its peer told of the member's network (the token is bound to it now), then the claim
 * written to the member. The member's network and directory go after the Outcome, in the background.
 */
async function launchWarm<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  spec: ComposedSpec,
  planned: Planned<R>,
  member: Member,
): Promise<Outcome<R>> {
  if (ctx.network !== undefined && member.network !== undefined) {
    const untold = await tellPeer(ctx.network, member.network.subnets);
    if (untold !== undefined) return endEarly(ctx, "unavailable", `the Run's network was made, but ${untold}`);
  }
  let claim: Uint8Array;
  try {
    const decided = claimOf(spec, member, ctx.tmpfsSecrets);
    claim = encodeClaim(decided);
    if (member.headStart !== undefined) ctx.pool?.headStarted(decided.mode === "go");
  } catch (error) {
    return endEarly(ctx, "invalid_request", maskedMessage(ctx, error));
  }
  const warm = {
    containerId: member.containerId,
    streams: member.streams,
    claim,
    claimed: () => ctx.pool?.claimed(Math.round(performance.now() - ctx.startedAt)),
  };
  ctx.logger.info({ runId: ctx.runId, member: member.id, headStart: member.headStart === undefined ? "none" : "offered" }, "run served warm");
  return endReason(ctx, await runTheContainer(ctx, state, spec, planned, { spec: member.spec, warm }), true);
}

/** The Outcome the container's facts give; a reader that says ok of an agent that exited non-zero is said in the log. */
function endReason<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, facts: ContainerFacts<R>, warm: boolean | undefined): Outcome<R> {
  const cold = outcomeOf(ctx.runId, facts, ctx.masker, Math.round(performance.now() - ctx.startedAt));
  const outcome = warm === undefined ? cold : { ...cold, warm };
  if (outcome.ok && outcome.exit !== undefined && outcome.exit.code !== 0) {
    ctx.logger.warn({ runId: ctx.runId, exit: outcome.exit }, "the reader said ok but the agent exited non-zero");
  }
  return outcome;
}
