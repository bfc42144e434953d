// The in-cluster egress proxy brought up and down through the API: its Secret, NetworkPolicy,
// Service and Pod made in that order (the Pod last, so it never runs unfenced), the Pod waited on
// until its container runs, and its control socket reached over exec (a bridge program in its
// image joins the exec's stdin and stdout to the socket). Invariant: a start that fails removes
// everything it made; the control secret travels only in the Secret, never in a message.

import { Duplex, PassThrough } from "node:stream";
import { describeBound, patientTimer } from "../liveness/index.js";
import type { KubeApi } from "./kube-api.js";
import { apiMessage, KubernetesError } from "./kube-error.js";
import { EGRESS_CONTAINER_NAME } from "./limits.js";
import type { EgressProxyPeer } from "./options.js";
import { FINAL_WAITING, type PodObject } from "./pod-status.js";
import { removeEgressProxy } from "./egress-sweep.js";
import { controlSecret, egressPeer, type EgressProxyPodOptions, renderEgressProxy } from "./render-egress.js";

export type EgressProxyPod = {
  readonly name: string;
  readonly namespace: string;
  /** The Service's cluster address: what a Run's agent is given as its proxy's host. */
  readonly clusterIP: string;
  /** What a Run's NetworkPolicy names as its one door. */
  readonly peer: EgressProxyPeer;
  /** A new connection to the control socket, over an exec of the bridge; rejects with the bridge's words. */
  readonly connect: () => Promise<Duplex>;
  /**
   * Why the proxy's Pod is shown gone (its container ended, the Pod not there), or undefined while it
   * runs or the API does not answer (which says nothing of the Pod). Never throws.
   */
  readonly gone: () => Promise<string | undefined>;
  /** Removes the Pod, Service, NetworkPolicy and Secret; an object already gone is no error. */
  readonly remove: () => Promise<void>;
};

export type EgressProxyStart = {
  /** The bridge's command in the proxy's image, the control socket's path its last word. */
  readonly bridge: readonly string[];
  /** The line the bridge writes on stderr once it holds the socket. */
  readonly connectedLine: string;
  /** How long the Pod may take to be scheduled, pulled and started. */
  readonly startTimeoutMs: number;
  /** How long a bridge may take to start and connect on an idle machine (stretched by the load); default BRIDGE_CONNECT_TIMEOUT_MS. */
  readonly connectTimeoutMs?: number;
  /** Ends the start when aborted, removing what was made; default none. */
  readonly signal?: AbortSignal;
};

/**
 * A node start in the proxy's container, on a busy node: not a user's deadline, so stretched by the
 * load. A bridge that ended before it connected is shown gone at once, whatever the bound.
 */
const BRIDGE_CONNECT_TIMEOUT_MS = 15_000;

export async function startEgressProxyPod(api: KubeApi, options: EgressProxyPodOptions, secret: string, start: EgressProxyStart): Promise<EgressProxyPod> {
  const manifest = renderEgressProxy(options);
  const namespace = manifest.pod.metadata?.namespace ?? "";
  const name = options.name;
  // Every object is tried, whatever one refuses or was never made: what is left is named, never a part of it hidden.
  const remove = async (): Promise<void> => {
    const left = await removeEgressProxy(api, namespace, name);
    if (left.length > 0)
      throw new KubernetesError(`the egress proxy's ${left.join(", ")} could not be removed from ${namespace}; remove them by hand (kubectl delete)`);
  };
  try {
    await api.createSecret(namespace, controlSecret(options, secret));
    await api.createNetworkPolicy(namespace, manifest.networkPolicy);
    const { clusterIP } = await api.createService(namespace, manifest.service);
    if (clusterIP === "" || clusterIP === "None") throw new KubernetesError(`the Service ${name} was given no cluster address (${JSON.stringify(clusterIP)})`);
    await api.createPod(namespace, manifest.pod);
    const peer = egressPeer(options);
    await untilRunning(api, namespace, name, peer.podLabels, start.startTimeoutMs, start.signal);
    const connect = () => bridged(api, namespace, name, start);
    return { name, namespace, clusterIP, peer, connect, gone: () => podGone(api, namespace, name, peer.podLabels), remove };
  } catch (error) {
    await remove().catch(() => undefined);
    throw error instanceof KubernetesError
      ? error
      : new KubernetesError(`the egress proxy ${name} could not be started in ${namespace}: ${apiMessage(error)}`, { cause: error });
  }
}

/**
 * Resolves once the proxy's container runs; rejects naming why when it cannot (deleted included), or
 * at the start bound. A watch of a Pod already gone says nothing at all, so once the watch is up the
 * Pod is read once: deleted before, it is named at once instead of at the bound.
 */
async function untilRunning(
  api: KubeApi,
  namespace: string,
  name: string,
  labels: Readonly<Record<string, string>>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  let last: PodObject | undefined;
  let handle: { stop: () => void } | undefined;
  let done = false;
  let onAbort: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new KubernetesError(`the egress proxy's Pod ${name} did not start within ${timeoutMs} ms${waitingWords(last)}`)),
        timeoutMs,
      );
      // A cancel (the command's Ctrl-C, the service's stop) ends the wait: what was made is removed by the caller.
      onAbort = () => {
        clearTimeout(timer);
        reject(new KubernetesError(`the egress proxy's start in ${namespace} was cancelled before its Pod ${name} ran`));
      };
      if (signal?.aborted === true) onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      const gone = (why: string) => {
        clearTimeout(timer);
        reject(new KubernetesError(`the egress proxy's Pod ${name} ${why} before it ran`));
      };
      const settle = (pod: PodObject, deleted?: boolean) => {
        last = pod;
        if (deleted === true) return gone("was deleted");
        const said = proxyState(pod);
        if (said === "running") {
          clearTimeout(timer);
          resolve();
        } else if (said !== undefined) {
          clearTimeout(timer);
          reject(new KubernetesError(`the egress proxy's Pod ${name} will not run: ${said}`));
        }
      };
      api
        .watchPod(namespace, name, settle, () => undefined)
        .then(
          (watch) => {
            handle = watch;
            // Settled before the watch was handed over: stop it now.
            if (done) return watch.stop();
            // Deleted before the watch began: no line will ever come. A gone Pod's other ends come on the watch.
            void podGone(api, namespace, name, labels).then((why) => {
              if (why === "is not there (removed)" && !done) gone(why);
            });
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error);
          },
        );
    });
  } finally {
    done = true;
    handle?.stop();
    if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
  }
}

/** The Pod asked for by its own labels: why it is gone, or undefined while it runs or may still (or the API did not answer). */
async function podGone(api: KubeApi, namespace: string, name: string, labels: Readonly<Record<string, string>>): Promise<string | undefined> {
  const selector = Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
  const pods = await api.listPods(namespace, selector).catch(() => undefined);
  if (pods === undefined) return undefined;
  const pod = pods.find((one) => one.metadata?.name === name);
  if (pod === undefined) return "is not there (removed)";
  const said = proxyState(pod);
  if (said === undefined || said === "running") return undefined;
  // Said after the proxy's name, or "it": "exited (code 1, Error)", "ended (Evicted)", "will not run: ImagePullBackOff".
  return said.startsWith("its container exited")
    ? said.replace(/^its container /, "")
    : said.startsWith("it ended")
      ? said.replace(/^it /, "")
      : `will not run: ${said}`;
}

/** "running", the words of a reason it will never run, or undefined while it may still start. */
function proxyState(pod: PodObject): "running" | string | undefined {
  const container = pod.status?.containerStatuses?.find((c) => c.name === EGRESS_CONTAINER_NAME);
  if (container?.state?.running !== undefined) return "running";
  const ended = container?.state?.terminated;
  if (ended !== undefined) return `its container exited (code ${ended.exitCode ?? "unknown"}${ended.reason === undefined ? "" : `, ${ended.reason}`})`;
  if (pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded") return `it ended (${pod.status.reason ?? pod.status.phase})`;
  const waiting = container?.state?.waiting;
  if (waiting?.reason !== undefined && FINAL_WAITING.has(waiting.reason)) {
    return `${waiting.reason}${waiting.message === undefined ? "" : ` (${waiting.message})`}`;
  }
  return undefined;
}

/** The proxy's Pod as the API lists it now: gone when it is not there or will not run; a Pod the API cannot list shows nothing. */
function waitingWords(pod: PodObject | undefined): string {
  const waiting = pod?.status?.containerStatuses?.find((c) => c.name === EGRESS_CONTAINER_NAME)?.state?.waiting;
  const scheduled = pod?.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  const reason = waiting?.reason ?? scheduled?.reason;
  const message = waiting?.message ?? scheduled?.message;
  return reason === undefined ? "" : ` (${reason}${message === undefined ? "" : `: ${message}`})`;
}

/** One connection to the control socket: an exec of the bridge, resolved once it says it holds the socket. */
async function bridged(api: KubeApi, namespace: string, name: string, start: EgressProxyStart): Promise<Duplex> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let said = "";
  const session = await api.exec(namespace, name, EGRESS_CONTAINER_NAME, start.bridge, stdout, stderr, stdin);
  const connection = Duplex.from({ readable: stdout, writable: stdin });
  // Destroyed before its end (the bridge gone, or its user done with it), a Duplex.from says AbortError: not a failure of anyone's.
  connection.on("error", () => undefined);
  connection.once("close", () => session.close());
  const boundMs = start.connectTimeoutMs ?? BRIDGE_CONNECT_TIMEOUT_MS;
  return new Promise<Duplex>((resolve, reject) => {
    // A bridge that neither connects nor ends (a node start stuck in a starved container) is given up.
    const timer = patientTimer(boundMs, (hit) => {
      connection.destroy();
      reject(new KubernetesError(`the egress proxy's control bridge in ${name} did not connect within ${describeBound(hit)}`));
    });
    stderr.on("data", (chunk: Buffer) => {
      said += chunk.toString("utf8");
      if (said.includes(start.connectedLine)) {
        timer.cancel();
        resolve(connection);
      }
    });
    void session.status.then((status) => {
      timer.cancel();
      const words = said.trim().split("\n").at(-1) ?? "";
      connection.destroy();
      reject(
        new KubernetesError(
          `the egress proxy's control bridge in ${name} ended before it connected${words === "" ? "" : `: ${words}`}${status.ok ? "" : ` (${status.message})`}`,
        ),
      );
    });
  });
}
