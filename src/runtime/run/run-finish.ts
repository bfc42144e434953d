// A staged Run's end, once its container is gone: what the write bound says, the secret files
// removed, the session store kept, the Harvest (or the change set of a writable work/), and the
// record finished. finishStagedRun only calls those steps in order.
// Invariant: whatever happened, the Run's directory gets its record and is kept or goes (a warm
// Run's, not kept, just after its Outcome, in the background), and its secret files never outlive the Run.

import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import { harvestRun } from "./harvest.js";
import { finishRecord, removeSecretFiles } from "./record.js";
import type { RunContext, StepState, StagedRun } from "./run-state.js";
import { checkWriteBound, refuseOutCopy, releaseWriteBound } from "./run-write-bound.js";
import { keepSession } from "./session.js";
import { tracedStep } from "../traced-step.js";

export async function finishStagedRun<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  staged: StagedRun,
  ran: Outcome<R>,
): Promise<Outcome<R>> {
  const { directory } = staged;
  let outcome = await checkWriteBound(ctx, state, directory, ran);
  outcome = refuseOutCopy(ctx, state, outcome);
  await removeSecretFiles(directory, ctx);
  outcome = await keepSessionStore(ctx, state, staged, outcome);
  const kept = outcome;
  outcome = ctx.harvestTo === undefined ? kept : await tracedStep(ctx.trace, "harvest", () => harvest(ctx, state, staged, kept));
  const keep = ctx.container.staging?.keepRuns ?? false;
  if (keep) outcome = { ...outcome, runDirectory: directory.root };
  const finished = outcome;
  const tidy = async (): Promise<void> => {
    await releaseWriteBound(ctx, directory, keep);
    await finishRecord(directory, finished, keep, ctx);
  };
  // A warm Run's directory that is not kept goes after its Outcome, as the rest of its member does
  // (nothing in it is the caller's any more: the Harvest is done); a kept one is whole when the Outcome says where.
  if (!keep && finished.warm === true && ctx.pool !== undefined) ctx.pool.afterRun(ctx.runId, tidy);
  else await tidy();
  return finished;
}

/** A Run whose container ran keeps its session store, unless the store's volume could not give it back. */
async function keepSessionStore<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  staged: StagedRun,
  outcome: Outcome<R>,
): Promise<Outcome<R>> {
  if (ctx.sessionStore === undefined || outcome.exit === undefined) return outcome;
  const refused = state.collectedSession?.refusal;
  if (refused !== undefined) {
    return { ...outcome, session: { kept: false, error: ctx.masker.mask(`the session store was not kept: ${refused.message}`) } };
  }
  return keepSession(outcome, staged.directory, ctx.container.staging?.runtimeDir as string, ctx.sessionStore, ctx.masker);
}

/** The Harvest to harvestTo, when asked for: out/, or with a writable work/ what the agent changed. */
async function harvest<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState, staged: StagedRun, outcome: Outcome<R>): Promise<Outcome<R>> {
  if (ctx.harvestTo === undefined) return outcome;
  // A work/ copied back from its volume is a new tree: the manifest carried over to it says what is as staged.
  const since = state.collectedOut?.manifest ?? staged.manifest;
  return harvestRun(outcome, staged.directory, ctx.harvestTo, {
    ...(since === undefined ? {} : { changesSince: { manifest: since, originals: ctx.inputs ?? {} } }),
    replace: ctx.replaceHarvestTo,
    stop: state.stop,
    masker: ctx.masker,
  });
}
