// One Run as a Pod: its Secret, its NetworkPolicy (before the Pod, so the Pod never runs
// unfenced), the Pod, a watch until it runs, stdin and stdout through attach, the exit from the
// Pod's status, and removal of all three whatever happened. Invariant: every way a Run can go is
// a value (PodRunResult), never a throw; a Pod that cannot be scheduled or pulled ends the Run
// `unavailable` within startTimeoutMs, naming the reason. Not yet run against a live cluster.
import { Writable } from "node:stream";
import type { ComposedSpec } from "../container/index.js";
import { renderEnvSecret } from "./env-secret.js";
import type { KubeApi } from "./kube-api.js";
import { AGENT_CONTAINER_NAME, ATTACH_PROTOCOL, MAX_POD_OUTPUT_BYTES, POD_EXIT_REPORT_MS, POD_START_TIMEOUT_MS } from "./limits.js";
import { renderPodManifest } from "./manifest.js";
import type { PodOptions } from "./options.js";
import type { PodState } from "./pod-status.js";
import { watchPod } from "./pod-watcher.js";

export type PodRunOptions = {
  readonly stdin: string | Uint8Array;
  /** Default POD_START_TIMEOUT_MS (2 min): scheduling and pulling the image count against it. */
  readonly startTimeoutMs?: number;
  /** Default POD_EXIT_REPORT_MS: how long the API may take to report the exit once stdout has closed. */
  readonly exitReportMs?: number;
  /** Default MAX_POD_OUTPUT_BYTES, for stdout and for stderr apart. */
  readonly maxOutputBytes?: number;
  /** Ends the Run when aborted (a cancel, the caller's timeout): the Pod and what it had are removed; default none. */
  readonly signal?: AbortSignal;
};

export type PodRunResult =
  | {
      readonly kind: "exited";
      readonly exitCode: number;
      /** The kubelet's word for the end: Completed, Error, OOMKilled, DeadlineExceeded. */
      readonly reason?: string;
      readonly stdout: Buffer;
      readonly stderr: Buffer;
      readonly truncated: boolean;
    }
  | { readonly kind: "cancelled" }
  | {
      readonly kind: "unavailable";
      /** Kubernetes' own reason where it gave one (Unschedulable, ImagePullBackOff, ...), else ours. */
      readonly reason: string;
      readonly message: string;
    };

/** Runs the spec as a Pod through `api`; throws only for a spec a Pod cannot honour (KubernetesError), before anything is made. */
export async function runPod(api: KubeApi, spec: ComposedSpec, podOptions: PodOptions, options: PodRunOptions): Promise<PodRunResult> {
  const manifest = renderPodManifest(spec, podOptions);
  const secret = renderEnvSecret(spec, podOptions);
  const namespace = manifest.pod.metadata?.namespace ?? "";
  const name = manifest.pod.metadata?.name ?? "";
  const made: Array<"Secret" | "NetworkPolicy" | "Pod"> = [];
  const watcher = watchPod(api, namespace, name);
  const aborted = abortOf(options.signal);
  let closeSession: (() => void) | undefined;
  // The caller's abort wins every wait; what was made is removed below all the same.
  const unlessAborted = <T>(wait: Promise<T>): Promise<T | typeof CANCELLED> => Promise.race([wait, aborted.promise]);
  try {
    if (secret !== undefined) {
      await api.createSecret(namespace, secret);
      made.push("Secret");
    }
    await api.createNetworkPolicy(namespace, manifest.networkPolicy);
    made.push("NetworkPolicy");
    await api.createPod(namespace, manifest.pod);
    made.push("Pod");
    if (options.signal?.aborted === true) return { kind: "cancelled" };
    const started = await unlessAborted(watcher.until((state) => state.kind !== "starting", options.startTimeoutMs ?? POD_START_TIMEOUT_MS));
    if (started === CANCELLED) return { kind: "cancelled" };
    if (started.timedOut) return notStarted(started.state, options.startTimeoutMs ?? POD_START_TIMEOUT_MS);
    if (started.state.kind === "refused") return { kind: "unavailable", reason: started.state.reason, message: started.state.message };
    const limit = options.maxOutputBytes ?? MAX_POD_OUTPUT_BYTES;
    const stdout = boundedSink(limit);
    const stderr = boundedSink(limit);
    if (started.state.kind === "running") {
      const session = await api.attach(namespace, name, AGENT_CONTAINER_NAME, stdout.stream, stderr.stream);
      if (session.protocol !== ATTACH_PROTOCOL) {
        session.close();
        return {
          kind: "unavailable",
          reason: "AttachProtocol",
          message: `the API server attached with ${JSON.stringify(session.protocol)}, which cannot close the agent's stdin and keep its stdout; a Run needs ${ATTACH_PROTOCOL} (Kubernetes 1.30 or later)`,
        };
      }
      closeSession = session.close;
      session.send(typeof options.stdin === "string" ? Buffer.from(options.stdin) : options.stdin);
      if ((await unlessAborted(session.closed)) === CANCELLED) return { kind: "cancelled" };
    }
    const ended = await unlessAborted(watcher.until((state) => state.kind === "ended", options.exitReportMs ?? POD_EXIT_REPORT_MS));
    if (ended === CANCELLED) return { kind: "cancelled" };
    if (ended.state.kind !== "ended") {
      return {
        kind: "unavailable",
        reason: "ExitUnreported",
        message: `the agent's output ended but the API reported no exit within ${options.exitReportMs ?? POD_EXIT_REPORT_MS} ms`,
      };
    }
    return {
      kind: "exited",
      exitCode: ended.state.exitCode,
      ...(ended.state.reason === undefined ? {} : { reason: ended.state.reason }),
      stdout: stdout.bytes(),
      stderr: stderr.bytes(),
      truncated: stdout.truncated() || stderr.truncated(),
    };
  } catch (error) {
    return { kind: "unavailable", reason: "ApiError", message: `the Kubernetes API refused or failed a request: ${apiMessage(error)}` };
  } finally {
    aborted.release();
    closeSession?.();
    watcher.stop();
    // The Pod first: what it held goes with it; then its fence and its Secret.
    for (const kind of ["Pod", "NetworkPolicy", "Secret"] as const) {
      if (made.includes(kind)) await api.remove(kind, namespace, kind === "Secret" ? (secret?.metadata?.name ?? "") : name).catch(() => undefined);
    }
  }
}

const CANCELLED = Symbol("cancelled");

/** A promise that resolves CANCELLED when the signal aborts (never without one), and the listener's removal. */
function abortOf(signal: AbortSignal | undefined): { readonly promise: Promise<typeof CANCELLED>; readonly release: () => void } {
  if (signal === undefined) return { promise: new Promise(() => undefined), release: () => undefined };
  let onAbort = () => undefined as void;
  const promise = new Promise<typeof CANCELLED>((resolve) => {
    onAbort = () => resolve(CANCELLED);
    if (signal.aborted) resolve(CANCELLED);
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return { promise, release: () => signal.removeEventListener("abort", onAbort) };
}

function notStarted(state: PodState, timeoutMs: number): PodRunResult {
  const reason = state.kind === "starting" && state.reason !== undefined ? state.reason : "NotStarted";
  const said = state.kind === "starting" && state.message !== undefined ? `: ${state.message}` : "";
  return { kind: "unavailable", reason, message: `the Pod did not start within ${timeoutMs} ms (${reason}${said})` };
}

function apiMessage(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const body = (error as { body?: unknown }).body;
  const said = typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body);
  return `${typeof code === "number" ? `HTTP ${code}` : error instanceof Error ? error.message : String(error)}${said === "" ? "" : ` ${said.slice(0, 500)}`}`;
}

function boundedSink(limit: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = false;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const room = limit - kept;
      if (chunk.length > room) dropped = true;
      if (room > 0) {
        const piece = chunk.subarray(0, room);
        chunks.push(piece);
        kept += piece.length;
      }
      done();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks), truncated: () => dropped };
}
