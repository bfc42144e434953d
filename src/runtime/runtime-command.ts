// commandFor(): the `docker run --rm` command equivalent to a Run that starts now, composed as
// run() composes it (same plan, labels, env and secret files, same container timer) and started by
// no one. Invariant: no secret value is in its argv; a call that cannot mean anything throws.

import { DEFAULT_TIMEOUT_SECONDS, renderCommand, type ComposedCommand } from "../container/index.js";
import type { ReaderVerdict, RunPrompt } from "../plan/index.js";
import { composeRun, containerDeadlineSeconds } from "./compose.js";
import { checkCallShape, COMMAND_OPTION_NAMES, describeValue, RunRequestError } from "./misuse.js";
import { ownershipLabels } from "./ownership.js";
import { checkPlan } from "./plan.js";
import { newRunId } from "./run-id.js";
import { runMasker } from "./run-masker.js";
import type { RunOptions } from "./run-options.js";
import { checkRunSecrets } from "./run-request.js";
import type { RuntimeShared } from "./runtime-shared.js";

export type CommandOptions = Pick<RunOptions, "env" | "secretFiles" | "secrets">;

export function commandForOf<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>) {
  return (prompt: RunPrompt<Q>, commandOptions: CommandOptions = {}, ...extra: never[]): ComposedCommand => {
    const shape = checkCallShape("commandFor", commandOptions, COMMAND_OPTION_NAMES, extra);
    if (shape !== undefined) throw new RunRequestError(shape);
    if (typeof prompt !== "object" || prompt === null || typeof (prompt as { text?: unknown }).text !== "string") {
      throw new RunRequestError(`the prompt ${describeValue(prompt)} is not { text: string }; pass the prompt's text as a string`);
    }
    const problem = checkRunSecrets(commandOptions);
    if (problem !== undefined) throw new RunRequestError(problem);
    const runId = newRunId();
    const masker = runMasker(shared.declared, commandOptions);
    const plan = shared.planFunction(prompt, { runId, mask: masker.maskDeep });
    const planProblem = checkPlan(plan);
    if (planProblem !== undefined) throw new RunRequestError(planProblem);
    const timeoutSeconds = shared.container.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    const spec = composeRun(shared.container, {
      runId,
      planArgs: plan.args,
      // As run() times a Run that starts now: the container's own timer, a margin after the timeout.
      deadlineSeconds: containerDeadlineSeconds(timeoutSeconds * 1000),
      ...(commandOptions.env === undefined ? {} : { runEnv: commandOptions.env }),
      ...(commandOptions.secretFiles === undefined ? {} : { secretFiles: commandOptions.secretFiles }),
      // As run() labels it, so both renderings agree and a sweep knows whose it is.
      labels: ownershipLabels(shared.ownershipOf(timeoutSeconds)),
    });
    return renderCommand(spec, plan.stdin, masker);
  };
}
