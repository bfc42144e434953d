// One Run once it has its slot, as the pipeline its steps are named after:
// stage -> plan -> compose -> container run -> end reason -> record -> harvest.
// performRun only calls the steps (run-prepare, run-launch, run-finish); they share run-state.ts.
// Every step's failure becomes the Outcome's reason; the Run's deadline and cancel cover them all;
// nothing of the Run is left behind but a record kept on purpose.

import type { Outcome, ReaderVerdict } from "../plan/index.js";
import { finishStagedRun } from "./run/index.js";
import { claimMember } from "./run/index.js";
import type { Member } from "./pool/index.js";
import { launchRun } from "./run-launch.js";
import { refuseBeforeStaging, stageRunDirectory } from "./run/index.js";
import { createStepState, endEarly, type RunContext } from "./run/index.js";
import { tracedStep } from "./traced-step.js";

export type { RunContext, RunFiles, WriteBound } from "./run/index.js";

export async function performRun<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): Promise<Outcome<R>> {
  const state = createStepState(ctx);
  // A pool member, when one serves this Run: claimed once nothing can refuse the Run for free, it is
  // this Run's alone from then, and goes with it.
  let member: Member | undefined;
  try {
    const staging = ctx.container.staging;
    if (staging === undefined) {
      member = claimMember(ctx);
      return await launchRun(ctx, state, undefined, member);
    }
    const refused = await refuseBeforeStaging(ctx, staging.runtimeDir);
    if (refused !== undefined) return refused;
    member = claimMember(ctx);
    const staged = await tracedStep(ctx.trace, "stage", () => stageRunDirectory(ctx, state, member?.work));
    if (!staged.ok) return endEarly(ctx, staged.reason, staged.error);
    // From here on, whatever happens, the Run's directory gets its record (or goes).
    return await finishStagedRun(ctx, state, staged, await launchRun(ctx, state, staged, member));
  } finally {
    state.stop.dispose();
    // Its container is gone when it ran; the rest (its network, what is left of its directory) goes in the background.
    if (member !== undefined) ctx.pool?.discard(member);
  }
}
