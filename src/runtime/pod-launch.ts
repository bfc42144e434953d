// A staged or unstaged Run on Kubernetes, once composed: what a Pod cannot do for it refused, its
// places sized as their Docker volumes would be, the Pod run (pod-container.ts) with its work/ filled
// from the Run directory first and its out/ (or writable work/) read back into it after, under the
// same copy-back as an engine's volume (volume-collect.ts). The steps after it (write bound, Harvest,
// record) are the Docker Run's own. Invariant: the Harvest's rules travel with the files.

import type { Readable } from "node:stream";
import { resolveAgentUser, type ComposedSpec } from "../container/index.js";
import type { PodFiles, PodOptions } from "../kube/index.js";
import type { ReaderVerdict, RunPlan } from "../plan/index.js";
import { DEFAULT_WRITABLE_BYTES, numericUser, packTree } from "../staging/index.js";
import { containerDeadlineSeconds, holderSecondsAfter } from "./run/index.js";
import { podPlacement, type KubernetesBackend } from "./pods/index.js";
import { runPodContainer } from "./pods/index.js";
import { podRefusalOf } from "./pod-refusals.js";
import { endEarly, maskedMessage, timeLeftMs, type LaunchedRun, type RunContext, type StepState, type StagedRun } from "./run/index.js";
import { volumeKinds, volumeSpecs } from "./run/index.js";
import { copyBackArchive, PLACE, type CollectedVolume } from "./volumes/index.js";

export async function launchPod<R extends ReaderVerdict, Q>(
  backend: KubernetesBackend,
  ctx: RunContext<R, Q>,
  state: StepState,
  spec: ComposedSpec,
  plan: { readonly plan: RunPlan<R>; readonly stdin: Uint8Array },
  staged: StagedRun | undefined,
): Promise<LaunchedRun<R>> {
  const refused = notOnPods(ctx);
  if (refused !== undefined) return { outcome: endEarly(ctx, "invalid_request", refused) };
  const places = staged === undefined ? undefined : await placesOf(ctx, staged);
  const podOptions: PodOptions = {
    ...podPlacement(backend),
    outBytes: places?.outBytes ?? ctx.container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES,
    // Its one door, when it has one: the egress proxy in the cluster; else nothing at all.
    network: ctx.network?.podPeer === undefined ? { policy: "none" } : { policy: "model", proxy: ctx.network.podPeer },
    ...(places === undefined ? {} : { files: places.files }),
  };
  let pod: string;
  const { KubernetesError, renderPodManifest } = await import("../kube/index.js");
  try {
    pod = renderPodManifest(spec, podOptions).pod.metadata?.name ?? spec.name;
  } catch (error) {
    if (error instanceof KubernetesError) return { outcome: endEarly(ctx, "invalid_request", maskedMessage(ctx, error)) };
    throw error;
  }
  let copied: CollectedVolume | undefined;
  const keep = places?.files.keep;
  const collect =
    staged === undefined || places === undefined || keep === undefined
      ? undefined
      : async (archive: Readable, finished: Promise<{ readonly ok: boolean; readonly message?: string }>) => {
          const wanted = ctx.harvestTo !== undefined || ctx.container.staging?.keepRuns === true;
          const destination = wanted ? (keep === "work" ? staged.directory.work : staged.directory.out) : undefined;
          const confirm = async () => {
            const status = await finished;
            return status.ok ? undefined : (status.message ?? "the holder's tar failed");
          };
          copied = await copyBackArchive(archive, keep, places.keptBounds, destination, keep === "work" ? staged.manifest : undefined, confirm);
        };
  const inputs = staged === undefined ? undefined : () => inputsArchive(ctx, staged);
  ctx.logger.info({ runId: ctx.runId, pod, namespace: backend.namespace }, "run started as a Pod");
  // The stall watchdog reads a container's CPU time from the Docker engine; a Pod's is not read yet, so
  // only the Run's timeout ends a silent agent there (the runner sets stallSeconds on every Run).
  if (ctx.stallSeconds !== undefined) ctx.logger.debug({ runId: ctx.runId, stallSeconds: ctx.stallSeconds }, "stallSeconds is not kept on Kubernetes yet");
  const ran = await runPodContainer(
    {
      runId: ctx.runId,
      ...(ctx.trace === undefined ? {} : { trace: ctx.trace }),
      spec,
      plan: plan.plan,
      stdin: plan.stdin,
      engine: ctx.engine,
      stop: state.stop,
      graceMs: ctx.graceMs,
      ownDeadlineMs: ctx.timeoutSeconds * 1000 + ctx.graceMs,
      logger: ctx.logger,
      masker: ctx.masker,
      ...(state.record === undefined ? {} : { onStdout: state.record.onStdout, onStderr: state.record.onStderr }),
    },
    { backend, podOptions, ...(inputs === undefined ? {} : { inputs }), ...(collect === undefined ? {} : { collect }), ...addressed(ctx) },
  );
  // The agent is gone with its Pod: its token dies now, as a container's does when it is seen gone.
  ctx.network?.onAgentGone?.();
  if (keep !== undefined) {
    const failed = ran.collected !== undefined && !ran.collected.ok ? ran.collected.message : undefined;
    if (copied !== undefined) state.collectedOut = copied;
    else if (failed !== undefined) {
      const message = `${PLACE[keep]} could not be read back from the Run's Pod: ${ctx.masker.mask(failed)}`;
      ctx.logger.error({ runId: ctx.runId, err: message }, "what the agent left could not be read back from its Pod");
      state.collectedOut = { full: false, refusal: { reason: "io_error", entry: ".", message } };
    }
  }
  return { facts: ran.facts };
}

/** The Pod's address to the Run's peer (the egress proxy binds the Run's token to it), when the Run has one. */
function addressed<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): { onAddress?: (podIPs: readonly string[]) => Promise<void> } {
  const opened = ctx.network?.onOpened;
  if (ctx.network?.podPeer === undefined || opened === undefined) return {};
  return { onAddress: (podIPs) => opened({ subnets: podIPs.map((ip) => (ip.includes(":") ? `${ip}/128` : `${ip}/32`)) }) };
}

/** What a Run asks that its Pod cannot give yet, as one sentence naming the option; undefined when nothing. */
function notOnPods<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>): string | undefined {
  if (ctx.network !== undefined && (ctx.network.podPeer === undefined || ctx.network.kind !== "internal")) {
    return podRefusalOf({ needs: "runNetwork", asked: "network" });
  }
  if (Object.keys(ctx.tmpfsSecrets).length > 0) return podRefusalOf({ needs: "tmpfsSecrets", asked: "tmpfsSecrets" });
  if (ctx.sessionStore !== undefined)
    return "sessionStore does not reach a Pod yet (its working copy would need a third place read back); leave it out on Kubernetes";
  return undefined;
}

/** The Pod's places, sized as the Docker volumes of a Run through the engine are (run-volumes.ts). */
async function placesOf<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  staged: StagedRun,
): Promise<{ readonly files: PodFiles; readonly outBytes: number; readonly keptBounds: { readonly bytes: number; readonly inodes: number } }> {
  const specs = await volumeSpecs(ctx, volumeKinds(ctx, staged), staged.directory);
  const work = specs.find((spec) => spec.kind === "work" || spec.kind === "inputs");
  const out = specs.find((spec) => spec.kind === "out");
  const kept = specs.find((spec) => spec.kind === "work") ?? out;
  const writableBytes = ctx.container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES;
  const holderSeconds = holderSecondsAfter(containerDeadlineSeconds(timeLeftMs(ctx)), ctx.graceMs);
  return {
    files: {
      inputs: true,
      ...(kept === undefined ? {} : { keep: kept.kind === "work" ? ("work" as const) : ("out" as const) }),
      holderSeconds,
      ...(work === undefined ? {} : { workBytes: work.bytes }),
    },
    outBytes: out?.bytes ?? writableBytes,
    keptBounds: { bytes: kept?.bytes ?? writableBytes, inodes: kept?.inodes ?? 1 },
  };
}

/** What staging put in work/ (out/ empty, the mount point of its own emptyDir), as a tar owned by the agent's user. */
function inputsArchive<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, staged: StagedRun): Readable {
  const packed = packTree(staged.directory.work, numericUser(resolveAgentUser(ctx.container.user)));
  // A walk that fails leaves the Pod a short archive: the stream is destroyed, and the attach dropped with it.
  packed.done.catch((error: unknown) => packed.archive.destroy(error instanceof Error ? error : new Error(String(error))));
  return packed.archive;
}
