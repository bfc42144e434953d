// A Run's container as a Pod: the same facts a Docker container run gives (container-run.ts), from
// runPod's result, the agent's output read by the same reader under the same caps and record. The
// Run's stop (stop.ts) reaches the Pod two ways: an interruption (timeout, cancel, a limit) ends and
// removes it at once; a stop without one (the reader failed, or the agent answered and did not exit
// in its grace) stops waiting for the agent, and its kept place is still read back. Invariant:
// resolves with the facts whatever happened; runPod leaves no Pod, NetworkPolicy or Secret behind.

import { PassThrough, type Readable } from "node:stream";
import type { ExecStatus, PodCollected, PodOptions, PodRunResult } from "../../kube/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import { outputOf } from "../container/index.js";
import { readVerdict } from "../container/index.js";
import { type ContainerRunContext, containerFacts, createContainerRunState, type ContainerRunState } from "../container/index.js";
import { type ContainerFacts, signalOfExitCode } from "../end-reason.js";
import type { KubernetesBackend } from "./kube-backend.js";
import { OUT_COPY_TIMEOUT_MS } from "../limits.js";
import { tracedStep } from "../traced-step.js";

export type PodContainerRun = {
  readonly backend: KubernetesBackend;
  readonly podOptions: PodOptions;
  /** The archive the Pod's `inputs` container unpacks into work/; with podOptions.files.inputs. */
  readonly inputs?: () => Readable;
  /** Reads the holder's archive of the kept place; with podOptions.files.keep. */
  readonly collect?: (archive: Readable, finished: Promise<ExecStatus>) => Promise<void>;
  /** Told the Pod's address before anything reaches it (the egress proxy binds the Run's token to it). */
  readonly onAddress?: (podIPs: readonly string[]) => Promise<void>;
};

/** The facts of the Run's Pod, and how reading its kept place back went (when it was read). */
export type PodFacts<R extends ReaderVerdict> = { readonly facts: ContainerFacts<R>; readonly collected?: PodCollected };

export async function runPodContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, pod: PodContainerRun): Promise<PodFacts<R>> {
  const state = createContainerRunState<R>();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const output = outputOf(ctx, state, { stdout, stderr });
  state.output = output;
  const agentStop = new AbortController();
  ctx.stop.containerStarted({ kill: () => agentStop.abort(), stopSignal: "SIGTERM", graceMs: 0 });
  const reading = readVerdict(ctx, state, output);
  void ctx.stop.interrupted.then(() => output.drain());
  let result: PodRunResult;
  try {
    // Loaded with the first Pod: Kubernetes' schemas are no cost to a runtime on Docker.
    const { runPod } = await import("../../kube/index.js");
    result = await tracedStep(ctx.trace, "stream", () =>
      runPod(pod.backend.api, ctx.spec, pod.podOptions, {
        stdin: ctx.stdin,
        stdout,
        stderr,
        signal: ctx.stop.signal,
        stopAgent: agentStop.signal,
        copyTimeoutMs: OUT_COPY_TIMEOUT_MS,
        // A late report is an API slow, not a Pod gone: said, and waited for.
        onSlow: (what, hit) => ctx.logger.warn({ runId: ctx.runId, boundMs: hit.boundMs, waitedMs: hit.waitedMs }, what),
        ...(pod.backend.startTimeoutMs === undefined ? {} : { startTimeoutMs: pod.backend.startTimeoutMs }),
        ...(pod.inputs === undefined ? {} : { inputs: pod.inputs }),
        ...(pod.collect === undefined ? {} : { collect: pod.collect }),
        ...(pod.onAddress === undefined ? {} : { onAddress: pod.onAddress }),
      }),
    );
  } finally {
    ctx.stop.containerExited();
  }
  // runPod ended both streams: the reader has had everything; an interrupted Run does not wait on it.
  await Promise.race([reading.done, ctx.stop.interrupted]);
  reading.disarm();
  output.stdout.end();
  endOf(ctx, state, result);
  const collected = result.kind === "exited" || result.kind === "stopped" ? result.collected : undefined;
  return { facts: containerFacts(state, ctx.stop), ...(collected === undefined ? {} : { collected }) };
}

/** What the Pod's end says, as a container's end says it. */
function endOf<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, state: ContainerRunState<R>, result: PodRunResult): void {
  if (result.kind === "unavailable") {
    state.engineFailure = `the Run's Pod could not run (${result.reason}): ${result.message}`;
    return;
  }
  if (result.kind !== "exited") return;
  // The kubelet ended the Pod at activeDeadlineSeconds before this process's own timer did.
  if (result.reason === "DeadlineExceeded") ctx.stop.interrupt("timeout", "the cluster ended the Run's Pod at its activeDeadlineSeconds");
  if (result.exitCode < 0) return;
  const signal = signalOfExitCode(result.exitCode);
  state.end = { exit: { code: result.exitCode, ...(signal === undefined ? {} : { signal }), oomKilled: result.reason === "OOMKilled" } };
}
