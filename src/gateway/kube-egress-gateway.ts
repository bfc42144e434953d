// The egress proxy inside a cluster, for Runs on Kubernetes: its Pod, Service and NetworkPolicy in
// the Runs' namespace (src/kube/egress-proxy.ts), driven over an exec of the bridge in its Pod, so
// no control port is ever opened. A Run's NetworkPolicy names it as the one door (`peer`), and its
// agent reaches it by the Service's cluster address. Invariant: the real key reaches only this Pod,
// per Run over the control channel; close() removes every object it made. Once its Pod runs, its
// start waits for its control socket as long as the Pod runs (proxy-start.ts), with no bound of its own.

import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { BRIDGE_CONNECTED, bridgeCommand, createEgressControlClient, DEFAULT_EGRESS_PORT, EGRESS_VARIABLES } from "../egress/index.js";
import type { ModelProvider } from "../plan/index.js";
import type { EgressProxyPeer, KubeApi } from "../kube/index.js";
import { newRunId, newRuntimeSessionId, ownershipLabels, RunRequestError, thisProcess } from "../runtime/index.js";
import { DEFAULT_EGRESS_IMAGE, type EgressGateway } from "./egress-gateway.js";
import { orphanedProxyBecause, PROXY_LIMITS, proxyEnvironment, READINESS_PROBE } from "./proxy-parts.js";
import { untilProxyListens } from "./proxy-start.js";

/** Where the proxy's control socket is made in its Pod (a memory emptyDir), and the Secret's file. */
const CONTROL_DIR = "/run/agentcage";
const SECRET_DIR = "/run/agentcage-secret";
const CONTROL_SOCKET = `${CONTROL_DIR}/egress.sock`;
/** Between two asks of the control socket while the proxy in its running Pod starts. */
const CONTROL_POLL_MS = 250;

export type KubeEgressGateway = EgressGateway & {
  /** What each Run's NetworkPolicy names as its one door: this proxy's labels and port. */
  readonly peer: EgressProxyPeer;
  /** The namespace it runs in, which must be its Runs' (its NetworkPolicy admits Pods of its own namespace only). */
  readonly namespace: string;
};

/** Whether a proxy is one in a cluster (a Pod's door, named by its NetworkPolicy), not one on an engine. */
export function isKubeEgressGateway(gateway: unknown): gateway is KubeEgressGateway {
  const peer = (gateway as { peer?: unknown } | null)?.peer;
  return typeof peer === "object" && peer !== null && typeof (gateway as { namespace?: unknown }).namespace === "string";
}

export type KubeEgressGatewayOptions = {
  readonly api: KubeApi;
  /** The Runs' namespace: the proxy lives beside them; default "agentcage", as a Run's Pod's. */
  readonly namespace?: string;
  /** Default DEFAULT_EGRESS_IMAGE, which the cluster's nodes must hold or pull. */
  readonly image?: string;
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
  readonly upstreams?: Readonly<Partial<Record<ModelProvider, string>>>;
  /** The stand-in model behind the proxy instead of the providers (no key, no internet). */
  readonly standIn?: boolean;
  readonly codexModel?: string;
  readonly logLevel?: string;
  /** How long the Pod may take to be scheduled, pulled and started; default 120000. */
  readonly startTimeoutMs?: number;
  /** Ends the start when aborted (a Ctrl-C), removing what was made; default none. */
  readonly signal?: AbortSignal;
  /** Told every few seconds while its running Pod's control socket does not answer yet: for how long so far. Must not throw. Default: none. */
  readonly onWaiting?: (waitedMs: number) => void;
  readonly logger?: Logger;
};

export async function startKubeEgressGateway(options: KubeEgressGatewayOptions): Promise<KubeEgressGateway> {
  const name = `agentcage-egress-${newRunId()}`;
  const secret = randomBytes(32).toString("base64url");
  // Loaded with the first proxy in a cluster: Kubernetes' schemas are no cost to a command on Docker.
  const { CONTROL_SECRET_KEY, DEFAULT_NAMESPACE_FOR_PODS, startEgressProxyPod, sweepEgressProxies } = await import("../kube/index.js");
  const namespace = options.namespace ?? DEFAULT_NAMESPACE_FOR_PODS;
  const session = newRuntimeSessionId();
  await sweepProxies(options, namespace, session, sweepEgressProxies);
  let proxy: Awaited<ReturnType<typeof startEgressProxyPod>>;
  try {
    proxy = await startEgressProxyPod(
      options.api,
      {
        name,
        namespace,
        image: options.image ?? DEFAULT_EGRESS_IMAGE,
        // tini as the Pod's init, as in compose's egress service: it reaps the bridges' processes and passes signals on.
        command: ["/usr/bin/tini", "-g", "--", "/usr/local/bin/agentcage-egress"],
        env: proxyEnvironment(options, DEFAULT_EGRESS_PORT, {
          [EGRESS_VARIABLES.controlSocket]: CONTROL_SOCKET,
          [EGRESS_VARIABLES.controlSecretFile]: `${SECRET_DIR}/${CONTROL_SECRET_KEY}`,
        }),
        user: "10002:10002",
        port: DEFAULT_EGRESS_PORT,
        controlDir: CONTROL_DIR,
        secretDir: SECRET_DIR,
        // Lives as long as this process: only its death makes the proxy an orphan for the sweep.
        labels: ownershipLabels({ session, ...thisProcess(), deadline: String(Number.MAX_SAFE_INTEGER) }),
        memoryBytes: PROXY_LIMITS.memoryBytes,
        tmpBytes: PROXY_LIMITS.tmpfsBytes,
        ...(options.imagePullPolicy === undefined ? {} : { imagePullPolicy: options.imagePullPolicy }),
      },
      secret,
      {
        bridge: bridgeCommand(CONTROL_SOCKET),
        connectedLine: BRIDGE_CONNECTED,
        startTimeoutMs: options.startTimeoutMs ?? 120_000,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
  } catch (error) {
    throw new RunRequestError(`the egress proxy could not start in the cluster: ${error instanceof Error ? error.message : String(error)}`);
  }
  const client = createEgressControlClient({ connect: proxy.connect, secret, where: `the egress proxy's Pod ${name} in ${namespace}` });
  // The proxy's process starts after its container does: its socket answers a meter of no Run once it listens.
  const started = await untilProxyListens({
    listening: () => client.meter(READINESS_PROBE).then(() => true),
    gone: proxy.gone,
    pollMs: CONTROL_POLL_MS,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
  });
  if (started.kind !== "listening") {
    client.close();
    await proxy.remove().catch(() => undefined);
    throw new RunRequestError(
      started.kind === "cancelled"
        ? `the start of the egress proxy's Pod ${name} in ${namespace} was cancelled (${started.why}); what it made is removed`
        : `the egress proxy's Pod ${name} in ${namespace} ${started.why} before its control socket answered${started.lastError === "" ? "" : ` (${started.lastError})`}`,
    );
  }
  options.logger?.info({ pod: name, namespace, clusterIP: proxy.clusterIP }, "the egress proxy runs in the cluster");
  return {
    ...client,
    container: name,
    alias: proxy.clusterIP,
    port: DEFAULT_EGRESS_PORT,
    peer: proxy.peer,
    namespace,
    ...(options.codexModel === undefined ? {} : { codexModel: options.codexModel }),
    // Reached over exec, so no socket of this process's can refuse: the cluster tells.
    gone: proxy.gone,
    close: async () => {
      client.close();
      await proxy.remove();
    },
  };
}

/** The proxies a dead process of this host left in the namespace, removed before a new one starts (proxy-parts.ts decides which). */
async function sweepProxies(
  options: KubeEgressGatewayOptions,
  namespace: string,
  session: string,
  sweep: typeof import("../kube/index.js").sweepEgressProxies,
): Promise<void> {
  const removed = await sweep(options.api, namespace, (labels) => orphanedProxyBecause(labels, session)).catch((error: unknown) => {
    options.logger?.warn({ err: (error as Error).message, namespace }, "the egress proxies left in the cluster could not be swept");
    return [];
  });
  for (const { name, why } of removed) options.logger?.info({ pod: name, namespace, why }, "removed an egress proxy left in the cluster");
}
