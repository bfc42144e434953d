// One Run as a Pod: its Secret, its NetworkPolicy (before the Pod, so the Pod never runs
// unfenced), the Pod, a watch until it runs, its inputs unpacked by the init container (over
// attach) before the agent starts, stdin and stdout through attach, the exit from the Pod's status,
// the kept place read back from the holder (tar over exec), and removal of all three whatever
// happened. Invariant: every way a Run can go is a value (PodRunResult), never a throw; a Pod that
// cannot be scheduled or pulled ends the Run `unavailable` within startTimeoutMs, naming the reason
// and the option. Once it runs, only the Pod shown gone (deleted, ended) or the API server shown
// gone (pod-watcher.ts) ends a wait on it; a late report is waited for (slow is not dead: docs/operations.md).
// Not yet run against a live cluster.
import { PassThrough, type Readable, Writable } from "node:stream";
import type { ComposedSpec } from "../container/index.js";
import { describeBound, patientTimer, type HitBound } from "../liveness/index.js";
import { renderEnvSecret } from "./env-secret.js";
import type { AttachSession, ExecStatus, KubeApi } from "./kube-api.js";
import { apiMessage } from "./kube-error.js";
import {
  AGENT_CONTAINER_NAME,
  ATTACH_PROTOCOL,
  HOLDER_CONTAINER_NAME,
  INPUTS_CONTAINER_NAME,
  MAX_POD_OUTPUT_BYTES,
  POD_COPY_TIMEOUT_MS,
  POD_EXIT_REPORT_MS,
  POD_START_TIMEOUT_MS,
} from "./limits.js";
import { renderPodManifest } from "./manifest.js";
import type { PodOptions } from "./options.js";
import type { PodState } from "./pod-status.js";
import { filesMountPath } from "./pod-volumes.js";
import { type PodWatcher, watchPod } from "./pod-watcher.js";

export type PodRunOptions = {
  readonly stdin: string | Uint8Array;
  /** Default POD_START_TIMEOUT_MS (2 min): scheduling and pulling the image count against it. Exact: it is the Operator's option (kubernetes.startTimeoutMs). */
  readonly startTimeoutMs?: number;
  /**
   * Default POD_EXIT_REPORT_MS: how long the API takes to report the exit once stdout has closed, on an
   * idle machine (stretched by the load); past it the report is late (onSlow) and waited for again.
   */
  readonly exitReportMs?: number;
  /** Told each time a wait on the Pod outlasted its bound and goes on (the Pod and the API server not shown gone): what was late, and the bound as hit. Default none. */
  readonly onSlow?: (what: string, hit: HitBound) => void;
  /** Default MAX_POD_OUTPUT_BYTES, for stdout and for stderr apart. */
  readonly maxOutputBytes?: number;
  /** Ends the Run when aborted (a cancel, the caller's timeout): the Pod and what it had are removed; default none. */
  readonly signal?: AbortSignal;
  /**
   * Stops waiting for the agent when aborted (its reader failed, or it answered and did not exit in
   * time): the kept place is still read back, then the Pod goes; the result is `stopped`. Default none.
   */
  readonly stopAgent?: AbortSignal;
  /** Where the agent's stdout and stderr go as they come (ended with the Run); default: kept in the result, up to maxOutputBytes. */
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** The archive (tar) the `inputs` init container unpacks into work/; needed when the options' files.inputs is true. */
  readonly inputs?: () => Readable;
  /**
   * Reads the holder's tar of the kept place (files.keep, its root directory the first entry) once
   * the agent has exited; `finished` says how the tar ended (after its last byte), for the reader to
   * refuse an archive its tar did not finish. A reader that throws or takes too long is the result's
   * `collected`; one that resolves early (it refused an entry) ends the transfer. Default: nothing is read.
   */
  readonly collect?: (archive: Readable, finished: Promise<ExecStatus>) => Promise<void>;
  /** Default POD_COPY_TIMEOUT_MS: for putting the inputs in, and apart for reading the kept place back. */
  readonly copyTimeoutMs?: number;
  /**
   * Told the Pod's addresses (both of a dual-stack Pod's) once it has them, before anything is sent to it (its inputs, the agent's
   * stdin): the egress proxy binds the Run's token to it. A rejection ends the Run `unavailable`
   * (reason EgressRefused) with its message. Default none.
   */
  readonly onAddress?: (podIPs: readonly string[]) => Promise<void>;
};

/** Whether the kept place was read back whole: the holder's tar and the caller's reading both succeeded. */
export type PodCollected = ExecStatus;

export type PodRunResult =
  | {
      readonly kind: "exited";
      readonly exitCode: number;
      /** The kubelet's word for the end: Completed, Error, OOMKilled, DeadlineExceeded. */
      readonly reason?: string;
      readonly stdout: Buffer;
      readonly stderr: Buffer;
      readonly truncated: boolean;
      /** With `collect`: how reading the kept place back went. */
      readonly collected?: PodCollected;
    }
  | {
      /** stopAgent was aborted before the agent's exit was reported: no exit facts, the kept place read back all the same. */
      readonly kind: "stopped";
      readonly stdout: Buffer;
      readonly stderr: Buffer;
      readonly truncated: boolean;
      readonly collected?: PodCollected;
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
  let releaseStopped = (): void => undefined;
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
    let ready = started.state;
    if (options.onAddress !== undefined && (ready.kind === "inputs" || ready.kind === "running")) {
      const refused = await unlessAborted(tellAddress(ready.podIPs, options.onAddress));
      if (refused === CANCELLED) return { kind: "cancelled" };
      if (refused !== undefined) return refused;
    }
    if (ready.kind === "inputs") {
      const filled = await unlessAborted(putInputs(api, namespace, name, options));
      if (filled === CANCELLED) return { kind: "cancelled" };
      if (filled !== undefined) return filled;
      const agentUp = await unlessAborted(
        watcher.until((state) => state.kind !== "starting" && state.kind !== "inputs", options.startTimeoutMs ?? POD_START_TIMEOUT_MS),
      );
      if (agentUp === CANCELLED) return { kind: "cancelled" };
      if (agentUp.timedOut) return notStarted(agentUp.state, options.startTimeoutMs ?? POD_START_TIMEOUT_MS);
      if (agentUp.state.kind === "refused") return { kind: "unavailable", reason: agentUp.state.reason, message: agentUp.state.message };
      ready = agentUp.state;
    }
    const limit = options.maxOutputBytes ?? MAX_POD_OUTPUT_BYTES;
    const stdout = boundedSink(limit);
    const stderr = boundedSink(limit);
    const output = () => ({ stdout: stdout.bytes(), stderr: stderr.bytes(), truncated: stdout.truncated() || stderr.truncated() });
    const stopped = abortOf(options.stopAgent);
    releaseStopped = stopped.release;
    if (ready.kind === "running") {
      const session = await api.attach(namespace, name, AGENT_CONTAINER_NAME, options.stdout ?? stdout.stream, options.stderr ?? stderr.stream);
      if (session.protocol !== ATTACH_PROTOCOL) return wrongProtocol(session);
      closeSession = session.close;
      session.send(typeof options.stdin === "string" ? Buffer.from(options.stdin) : options.stdin);
      const closed = await Promise.race([session.closed, aborted.promise, stopped.promise]);
      if (closed === CANCELLED && cancelledBy(options.signal)) return { kind: "cancelled" };
    }
    const ended = await Promise.race([untilEnded(watcher, options), aborted.promise, stopped.promise]);
    if (ended === CANCELLED && cancelledBy(options.signal)) return { kind: "cancelled" };
    if (ended === CANCELLED)
      return { kind: "stopped", ...output(), ...(await collected(api, namespace, name, options, podOptions.files?.keep ?? "out", unlessAborted)) };
    if (ended.kind === "refused") return { kind: "unavailable", reason: ended.reason, message: ended.message };
    if (ended.kind !== "ended")
      return { kind: "unavailable", reason: "ExitUnreported", message: "the Pod's watch ended without its exit; this is a bug, report it" };
    const exit = ended;
    const back = exit.reason === "DeadlineExceeded" ? {} : await collected(api, namespace, name, options, podOptions.files?.keep ?? "out", unlessAborted);
    if (cancelledBy(options.signal)) return { kind: "cancelled" };
    return {
      kind: "exited",
      exitCode: exit.exitCode,
      ...(exit.reason === undefined ? {} : { reason: exit.reason }),
      ...output(),
      ...back,
    };
  } catch (error) {
    return { kind: "unavailable", reason: "ApiError", message: `the Kubernetes API refused or failed a request: ${apiMessage(error)}` };
  } finally {
    aborted.release();
    releaseStopped();
    closeSession?.();
    options.stdout?.end();
    options.stderr?.end();
    watcher.stop();
    // The Pod first: what it held goes with it; then its fence and its Secret.
    for (const kind of ["Pod", "NetworkPolicy", "Secret"] as const) {
      if (made.includes(kind)) await api.remove(kind, namespace, kind === "Secret" ? (secret?.metadata?.name ?? "") : name).catch(() => undefined);
    }
  }
}

const CANCELLED = Symbol("cancelled");

/**
 * The Pod's end once its agent's output closed: however late the API reports it, while neither the
 * Pod nor the API server is shown gone (a `refused` state: deleted, or the server refusing); each
 * POD_EXIT_REPORT_MS (stretched by the load) without it is told to onSlow. The Run's own deadline
 * (its signal) bounds the whole.
 */
async function untilEnded(watcher: PodWatcher, options: PodRunOptions): Promise<PodState> {
  const idleMs = options.exitReportMs ?? POD_EXIT_REPORT_MS;
  const settled = watcher.until((state) => state.kind === "ended" || state.kind === "refused");
  for (;;) {
    let timer: { readonly cancel: () => void } | undefined;
    const late = new Promise<HitBound>((resolve) => (timer = patientTimer(idleMs, resolve)));
    const seen = await Promise.race([settled, late]);
    timer?.cancel();
    if ("state" in seen) return seen.state;
    options.onSlow?.(
      `the API has not reported the agent's exit since its output ended, past ${describeBound(seen)}; it is waited for while the Pod and the API server are there`,
      seen,
    );
  }
}

/** The Pod's address to `onAddress`; a Pod with none, or a refusal, ends the Run before anything reaches it. */
async function tellAddress(podIPs: readonly string[] | undefined, onAddress: (podIPs: readonly string[]) => Promise<void>): Promise<PodRunResult | undefined> {
  if (podIPs === undefined || podIPs.length === 0) {
    return { kind: "unavailable", reason: "NoPodAddress", message: "the Pod runs but the API reported no address for it, which the egress proxy needs" };
  }
  try {
    await onAddress(podIPs);
    return undefined;
  } catch (error) {
    return { kind: "unavailable", reason: "EgressRefused", message: `the egress proxy did not take the Pod's address: ${(error as Error).message}` };
  }
}

function wrongProtocol(session: AttachSession): PodRunResult {
  session.close();
  return {
    kind: "unavailable",
    reason: "AttachProtocol",
    message: `the API server attached with ${JSON.stringify(session.protocol)}, which cannot close a container's stdin and keep its output; a Run needs ${ATTACH_PROTOCOL} (Kubernetes 1.30 or later)`,
  };
}

/** The inputs' archive to the `inputs` init container's tar, over attach; undefined once it took it all and ended. */
async function putInputs(api: KubeApi, namespace: string, name: string, options: PodRunOptions): Promise<PodRunResult | undefined> {
  if (options.inputs === undefined) {
    return { kind: "unavailable", reason: "NoInputs", message: "the Pod waits for the Run's inputs and none were given; this is a bug, report it" };
  }
  const said = boundedSink(4096);
  const session = await api.attach(namespace, name, INPUTS_CONTAINER_NAME, new PassThrough().resume(), said.stream);
  if (session.protocol !== ATTACH_PROTOCOL) return wrongProtocol(session);
  const archive = options.inputs();
  try {
    session.send(archive);
    // Not a user's deadline: stretched by the load.
    let timer: { readonly cancel: () => void } | undefined;
    const late = new Promise<HitBound>((resolve) => (timer = patientTimer(options.copyTimeoutMs ?? POD_COPY_TIMEOUT_MS, resolve)));
    const over = await Promise.race([session.closed, late]);
    timer?.cancel();
    if (over !== undefined) {
      return { kind: "unavailable", reason: "InputsNotUnpacked", message: `the Pod did not take the Run's inputs within ${describeBound(over)}` };
    }
    return undefined;
  } finally {
    session.close();
    archive.destroy();
  }
}

/** With `collect`: the holder's tar of the kept place, read by the caller, bounded; how it went. */
async function collected(
  api: KubeApi,
  namespace: string,
  name: string,
  options: PodRunOptions,
  keep: "out" | "work",
  unlessAborted: <T>(wait: Promise<T>) => Promise<T | typeof CANCELLED>,
): Promise<{ readonly collected?: PodCollected }> {
  const { collect } = options;
  if (collect === undefined) return {};
  const place = filesMountPath(keep);
  const archive = new PassThrough();
  const said = boundedSink(4096);
  let session: Awaited<ReturnType<KubeApi["exec"]>> | undefined;
  let timer: { readonly cancel: () => void } | undefined;
  // A write after the reader stopped (it refused an entry) is not an error of the Run.
  archive.on("error", () => undefined);
  try {
    // The place itself is the archive's first entry, as Docker's archive of a path gives it.
    session = await api.exec(namespace, name, HOLDER_CONTAINER_NAME, ["tar", "-c", "-f", "-", "-C", "/", place.slice(1)], archive, said.stream);
    const finished = session.status.then((status): ExecStatus => {
      const stderr = said.bytes().toString("utf8").trim();
      return status.ok ? status : { ok: false, message: `tar in the holder failed: ${status.message}${stderr === "" ? "" : ` (${stderr.slice(0, 300)})`}` };
    });
    const read = collect(archive, finished).then((): PodCollected => ({ ok: true }));
    // Not a user's deadline: stretched by the load.
    const late = new Promise<PodCollected>((resolve) => {
      timer = patientTimer(options.copyTimeoutMs ?? POD_COPY_TIMEOUT_MS, (hit) =>
        resolve({ ok: false, message: `the holder's archive was not read within ${describeBound(hit)}` }),
      );
    });
    const answer = await unlessAborted(Promise.race([read, late]));
    return { collected: answer === CANCELLED ? { ok: false, message: "the Run was cancelled while its files were read back" } : answer };
  } catch (error) {
    return { collected: { ok: false, message: `the holder's archive could not be read: ${error instanceof Error ? error.message : apiMessage(error)}` } };
  } finally {
    timer?.cancel();
    session?.close();
    archive.end();
  }
}

/** Read afresh: an abort may come while the Run waits, whatever an earlier check saw. */
function cancelledBy(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

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
  return {
    kind: "unavailable",
    reason,
    message: `the Pod did not start within ${timeoutMs} ms (${reason}${said}); a cluster slow to schedule or pull is given longer with kubernetes.startTimeoutMs`,
  };
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
