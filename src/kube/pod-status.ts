// What a Pod's status says about its Run, read from the watch's objects: still starting, running,
// ended (with its exit facts), or never going to run (unschedulable, an image that cannot be pulled).
// Invariant: a reason that will not pass by itself ends the Run at once; one that may pass
// (ErrImagePull, Unschedulable) is waited out only until the Run's start bound, then named.
import { AGENT_CONTAINER_NAME, INPUTS_CONTAINER_NAME } from "./limits.js";

export type ContainerStatus = {
  readonly name?: string;
  readonly state?: {
    readonly waiting?: { readonly reason?: string; readonly message?: string };
    readonly running?: object;
    readonly terminated?: { readonly exitCode?: number; readonly signal?: number; readonly reason?: string; readonly message?: string };
  };
};

/** The parts of a Pod (as the API sends it) that decide a Run; everything else is ignored. */
export type PodObject = {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> };
  readonly status?: {
    readonly phase?: string;
    /** The Pod's own address, once its sandbox is up (before its first container starts); */
    readonly podIP?: string;
    /** and every one of them, a dual-stack Pod's two. */
    readonly podIPs?: ReadonlyArray<{ readonly ip?: string }>;
    readonly reason?: string;
    readonly message?: string;
    readonly conditions?: ReadonlyArray<{ readonly type?: string; readonly status?: string; readonly reason?: string; readonly message?: string }>;
    readonly containerStatuses?: readonly ContainerStatus[];
    readonly initContainerStatuses?: readonly ContainerStatus[];
  };
};

export type PodState =
  | { readonly kind: "starting"; readonly reason?: string; readonly message?: string }
  /** The `inputs` init container runs: it waits for the Run's inputs on its stdin; the agent has not started. */
  | { readonly kind: "inputs"; readonly podIPs?: readonly string[] }
  | { readonly kind: "running"; readonly podIPs?: readonly string[] }
  | { readonly kind: "ended"; readonly exitCode: number; readonly reason?: string }
  | { readonly kind: "refused"; readonly reason: string; readonly message: string };

/** Waiting reasons Kubernetes does not get past by itself for a Pod: a Run's (or the egress proxy's) start ends at once. */
export const FINAL_WAITING: ReadonlySet<string> = new Set([
  "ImagePullBackOff",
  "InvalidImageName",
  "ErrImageNeverPull",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

export function podState(pod: PodObject): PodState {
  const status = pod.status ?? {};
  const inputs = status.initContainerStatuses?.find((c) => c.name === INPUTS_CONTAINER_NAME);
  const unpacked = inputs?.state?.terminated;
  // Before the Pod's phase: an init container that failed fails the Pod, and its exit is not the agent's.
  if (unpacked !== undefined && unpacked.exitCode !== 0) {
    const said = unpacked.message === undefined ? "" : `: ${unpacked.message}`;
    return {
      kind: "refused",
      reason: "InputsNotUnpacked",
      message: `the Run's inputs could not be unpacked in the Pod (tar exited ${unpacked.exitCode ?? "without a code"}${said})`,
    };
  }
  const container = status.containerStatuses?.find((c) => c.name === AGENT_CONTAINER_NAME);
  const terminated = container?.state?.terminated;
  if (terminated !== undefined) {
    return { kind: "ended", exitCode: terminated.exitCode ?? -1, ...(terminated.reason === undefined ? {} : { reason: terminated.reason }) };
  }
  // The kubelet ends a Pod past activeDeadlineSeconds as Failed/DeadlineExceeded, sometimes before any container status says so.
  if (status.phase === "Failed" || status.phase === "Succeeded") {
    return { kind: "ended", exitCode: status.phase === "Succeeded" ? 0 : -1, ...(status.reason === undefined ? {} : { reason: status.reason }) };
  }
  const ips = [...new Set([status.podIP, ...(status.podIPs ?? []).map((one) => one.ip)].filter((ip): ip is string => ip !== undefined && ip !== ""))];
  const address = ips.length === 0 ? {} : { podIPs: ips };
  if (container?.state?.running !== undefined) return { kind: "running", ...address };
  if (inputs?.state?.running !== undefined) return { kind: "inputs", ...address };
  // An image that cannot be pulled shows first on the container the kubelet starts first: inputs, when there is one.
  const waiting = [inputs, container].find((c) => c?.state?.waiting?.reason !== undefined && c.state.waiting.reason !== "PodInitializing")?.state?.waiting;
  if (waiting?.reason !== undefined && FINAL_WAITING.has(waiting.reason)) {
    return { kind: "refused", reason: waiting.reason, message: waiting.message ?? "" };
  }
  if (waiting?.reason !== undefined)
    return { kind: "starting", reason: waiting.reason, ...(waiting.message === undefined ? {} : { message: waiting.message }) };
  const scheduled = status.conditions?.find((c) => c.type === "PodScheduled");
  if (scheduled?.status === "False" && scheduled.reason !== undefined) {
    return { kind: "starting", reason: scheduled.reason, ...(scheduled.message === undefined ? {} : { message: scheduled.message }) };
  }
  return { kind: "starting" };
}
