// commandFor() and manifestFor(): the `docker run --rm` command, or the Kubernetes Pod and
// NetworkPolicy, equivalent to a Run that starts now, composed as run() composes it (same plan,
// labels, env and secret files, same container timer, a Pod's helper containers) and started by no one. Invariant: no secret
// value is in its argv or its manifest; a call that cannot mean anything throws.

import { type ComposedCommand, type ComposedSpec, DEFAULT_TIMEOUT_SECONDS, renderCommand } from "../container/index.js";
import type { PodFiles, PodManifest, PodOptions } from "../kube/index.js";
import type { ReaderVerdict, RunPrompt } from "../plan/index.js";
import type { Masker } from "../redact/index.js";
import { DEFAULT_WRITABLE_BYTES } from "../staging/index.js";
import { composeRun, containerDeadlineSeconds, holderSecondsAfter } from "./run/index.js";
import { checkCallShape, COMMAND_OPTION_NAMES, describeValue, RunRequestError } from "./misuse.js";
import { ownershipLabels } from "./ownership/index.js";
import { checkPlan } from "./run/index.js";
import { newRunId } from "./run-id.js";
import { runMasker } from "./run/index.js";
import type { RunOptions } from "./run/index.js";
import { checkRunSecrets } from "./run/index.js";
import type { RuntimeShared } from "./runtime-shared.js";

export type CommandOptions = Pick<RunOptions, "env" | "secretFiles" | "secrets">;
/** What a Pod needs beyond the spec; out/'s size is the declaration's writableBytes (or its default). */
export type ManifestOptions = Omit<PodOptions, "outBytes">;

type Composed = { readonly spec: ComposedSpec; readonly stdin: string | Uint8Array; readonly masker: Masker };

function composeNow<R extends ReaderVerdict, Q>(
  shared: RuntimeShared<R, Q>,
  call: string,
  prompt: RunPrompt<Q>,
  commandOptions: CommandOptions,
  extra: never[],
): Composed {
  const shape = checkCallShape(call, commandOptions, COMMAND_OPTION_NAMES, extra);
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
    // As run() labels it, so every rendering agrees and a sweep knows whose it is.
    labels: ownershipLabels(shared.ownershipOf(timeoutSeconds)),
  });
  return { spec, stdin: plan.stdin, masker };
}

export function commandForOf<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>) {
  return (prompt: RunPrompt<Q>, commandOptions: CommandOptions = {}, ...extra: never[]): ComposedCommand => {
    const { spec, stdin, masker } = composeNow(shared, "commandFor", prompt, commandOptions, extra);
    return renderCommand(spec, stdin, masker);
  };
}

/**
 * Rejects with KubernetesError for what a Pod cannot honour, naming the parameter. The Kubernetes
 * folder (and its schemas) loads only here, when first asked for. Not yet run against a live cluster.
 */
export function manifestForOf<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>) {
  return async (prompt: RunPrompt<Q>, pod: ManifestOptions, commandOptions: CommandOptions = {}, ...extra: never[]): Promise<PodManifest> => {
    const policy = (pod as { network?: { policy?: unknown } } | undefined)?.network?.policy;
    if (!["none", "model", "allowlist"].includes(policy as string)) {
      throw new RunRequestError(
        `manifestFor's pod options ${describeValue(pod)} name no network policy; pass { network: { policy: "none" } } or a policy with its proxy`,
      );
    }
    const { spec } = composeNow(shared, "manifestFor", prompt, commandOptions, extra);
    const files = pod.files ?? runPodFiles(shared, spec);
    const { renderPodManifest } = await import("../kube/index.js");
    return renderPodManifest(spec, {
      ...pod,
      ...(files === undefined ? {} : { files }),
      outBytes: shared.container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES,
    });
  };
}

/**
 * The files of a staged Run's Pod as pod-launch makes them: the `inputs` init container, and the holder
 * of out/ (or of a writable work/); work/'s size is what staging puts there, unknown here, so outBytes.
 * None without staging: such a Pod has no work/.
 */
function runPodFiles<R extends ReaderVerdict, Q>(shared: RuntimeShared<R, Q>, spec: ComposedSpec): PodFiles | undefined {
  const staging = shared.container.staging;
  if (staging === undefined || spec.deadline === undefined) return undefined;
  return { inputs: true, keep: staging.writableWork === true ? "work" : "out", holderSeconds: holderSecondsAfter(spec.deadline.seconds, shared.graceMs) };
}
