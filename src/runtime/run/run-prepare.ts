// Before a staged Run's container: what can be refused before anything is staged (a Harvest
// destination that cannot take it, a session store that is not there to resume), then the Run's
// directory, staged under the Run's deadline and cancel.
// Invariant: a refusal here costs no Run and leaves nothing of it on disk.

import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import { checkHarvestDestination } from "./run-request.js";
import { endEarly, type RunContext, type StepState } from "./run-state.js";
import { checkSessionToResume } from "./session.js";
import { stageRun, type Staged } from "./stage.js";

/** The Outcome of a Run refused before anything is staged; undefined when it may be staged. */
export async function refuseBeforeStaging<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, runtimeDir: string): Promise<Outcome<R> | undefined> {
  if (ctx.harvestTo !== undefined) {
    // Before anything is staged: a destination that cannot take the Harvest costs no Run.
    const refusal = await checkHarvestDestination(ctx.harvestTo, ctx.replaceHarvestTo, {
      runtimeDir,
      ...(ctx.inputs?.directory === undefined ? {} : { inputsDirectory: ctx.inputs.directory }),
    });
    if (refusal !== undefined) return endEarly(ctx, "invalid_request", refusal);
  }
  if (ctx.sessionStore !== undefined) {
    const refusal = await checkSessionToResume(runtimeDir, ctx.sessionStore);
    if (refusal !== undefined) return endEarly(ctx, "invalid_request", refusal);
  }
  return undefined;
}

/** The Run's directory with its inputs, prompt (masked), secret files and session store's working copy. */
export function stageRunDirectory<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState, adoptedWork?: string): Promise<Staged> {
  return stageRun({
    runId: ctx.runId,
    container: ctx.container,
    inputs: ctx.inputs ?? {},
    maskedPrompt: ctx.masker.mask(ctx.prompt.text),
    secretFiles: ctx.secretFiles,
    ownership: ctx.ownership,
    ...(ctx.sessionStore === undefined ? {} : { sessionStore: ctx.sessionStore }),
    stop: state.stop,
    boundByMount: ctx.writeBound === "mount",
    ...(adoptedWork === undefined ? {} : { adoptedWork }),
  });
}
