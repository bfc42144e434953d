// A Run's network policy, as the runner applies it: what network the agent gets, and under `model`
// and `allowlist` the per-Run token it holds instead of the real credential (registered with the
// egress proxy before the Run, revoked the moment it ends), with the budget held at the source.
// The one place that decides which variables point a CLI at the proxy.

import { newRunId, type RunNetwork } from "../runtime/index.js";
import { type EgressGateway, isKubeEgressGateway } from "../gateway/index.js";
import type { RunMeter } from "../egress/index.js";
import { adapterFor, type Credential, type AgentRequest } from "../agents/index.js";
import { GoneError, whileAlive } from "../liveness/index.js";
import { METER_READ_SLOW_MS } from "./limits.js";

/** Every network policy a runner applies, from none at all to the open internet. */
export const NETWORK_POLICIES = ["none", "model", "allowlist", "open"] as const;
/**
 * What network a Run's agent gets: `none`; `model`, its provider only, through the egress proxy;
 * `allowlist`, that and HTTPS to the `host:port` pairs listed; `open`, anything, holding the real credential.
 */
export type NetworkPolicy = (typeof NETWORK_POLICIES)[number];

/** The clouds' instance metadata endpoint: any network with a route out reaches it. */
const METADATA_ADDRESS = "169.254.169.254";

/**
 * What an agent can reach past its model, said plainly, when it is a policy or a network named by
 * hand that reaches out: `open`, or any network but "none" and a container's namespace (a stand-in
 * model's). Undefined when the agent reaches no more than the egress proxy, a namespace, or nothing.
 */
export function reachWarning(choice: { readonly policy?: NetworkPolicy; readonly networks?: readonly string[] }): string | undefined {
  if (choice.policy === "open") {
    return `under network policy "open" the agent holds its credential itself and has a route out: it reaches the internet, your LAN, the host's bridge address and a cloud's metadata endpoint (${METADATA_ADDRESS}); use "model" to keep the key in the egress proxy and let the agent reach only its model`;
  }
  const reaching = (choice.networks ?? []).filter((name) => name !== "none" && !name.startsWith("container:"));
  if (reaching.length === 0) return undefined;
  return `network ${reaching.map((name) => JSON.stringify(name)).join(", ")} is joined by hand, with the agent's credential in its environment: the agent reaches whatever it routes to, and Docker's default "bridge" reaches the internet, your LAN, the host's services and a cloud's metadata endpoint (${METADATA_ADDRESS}) through NAT; use network policy "model" to keep the key in the egress proxy`;
}

/** What the Outcome says of the Run's network: its policy, and under the proxy what it metered. */
export type NetworkReport = {
  /** "declared": the runner's own `networks`, not a policy. */
  readonly policy: NetworkPolicy | "declared";
  /** Under `model` and `allowlist`: the proxy's meter, read from the provider's own answers. */
  readonly meter?: RunMeter;
};

/** The variables a CLI reads to reach its model through the proxy, with the Run's token as its key. */
export function proxiedEnvironment(
  cli: AgentRequest["cli"],
  token: string,
  gateway: Pick<EgressGateway, "alias" | "port">,
  policy: "model" | "allowlist",
): Record<string, string> {
  // Where it speaks is its endpoint's (the public environment, or its argv): here only the token, in its adapter's variable.
  const key = { [adapterFor(cli).proxyTokenVariable]: token };
  if (policy === "model") return key;
  // CONNECT through the proxy, authorized by the same token; the model itself stays direct (publicProxyEnvironment).
  const proxy = `http://run:${token}@${gateway.alias}:${gateway.port}`;
  return { ...key, HTTPS_PROXY: proxy, https_proxy: proxy };
}

/** What is not secret of the allowlist's proxy settings: the model's own host goes direct. Every secret value is masked everywhere, so this cannot ride with the token. */
export function publicProxyEnvironment(gateway: Pick<EgressGateway, "alias">): Record<string, string> {
  return { NO_PROXY: gateway.alias, no_proxy: gateway.alias };
}

export function egressBaseUrl(gateway: Pick<EgressGateway, "alias" | "port">): string {
  return `http://${gateway.alias}:${gateway.port}`;
}

export type ProxiedRun = {
  readonly runId: string;
  /** The proxy the Run is registered with: over several engines, the one of the engine it was placed on. */
  readonly gateway: EgressGateway;
  /**
   * Registers the Run with the proxy (once; later calls answer the first's promise), under `token`
   * when given (a pool member's, made ahead), and resolves with the variables that hand the agent
   * its token. Rejects with the proxy's refusal.
   */
  readonly register: (token?: string) => Promise<Record<string, string>>;
  /** Whether register was called: before, there is nothing to revoke or meter. */
  readonly registered: () => boolean;
  readonly network: RunNetwork;
  /** Kills the Run's token (once: the moment its container is seen gone, or when the Run ends) and resolves with the proxy's last meter reading. */
  readonly revoke: () => Promise<RunMeter | undefined>;
  /** Whether the token was revoked: from then on the proxy not knowing the Run is expected, not a proxy gone. */
  readonly revoked: () => boolean;
  /** Takes each reading of the proxy's meter: an answer that streamed since the last is a sign of life for the stall watchdog. */
  readonly observe: (meter: RunMeter) => void;
};

/**
 * Over several engines, a proxied Run before its placement: its id, and its ProxiedRun on the proxy
 * of the engine it is placed on (that proxy's breaches heard first), made once it is.
 */
export type UnplacedProxiedRun = {
  readonly runId: string;
  /** `recheck`: the engine's proxy checked first, and started again when its container is gone. */
  readonly on: (engine: string, recheck?: boolean) => Promise<ProxiedRun>;
};

/** The Run as the proxy will know it; nothing is registered until its register() is called. */
export function proxiedRun(
  gateway: EgressGateway,
  request: AgentRequest,
  credential: Extract<Credential, { kind: "api_key" | "oauth_token" }>,
  policy: "model" | "allowlist",
  allowlist: readonly string[],
  runId: string = newRunId(),
): ProxiedRun {
  const caps = request.budget;
  const budget = {
    ...(caps?.maxTurns === undefined ? {} : { maxTurns: caps.maxTurns }),
    ...(caps?.maxTokens === undefined ? {} : { maxTokens: caps.maxTokens }),
    ...(caps?.maxCostUsd === undefined ? {} : { maxCostUsd: caps.maxCostUsd }),
  };
  let registering: Promise<Record<string, string>> | undefined;
  const register = (token?: string): Promise<Record<string, string>> =>
    (registering ??= gateway
      .register({
        runId,
        provider: adapterFor(request.cli).modelProvider,
        // For the proxy's log, and for a proxy image older than providers (which routed by it).
        cli: request.cli,
        credential: { kind: credential.kind, value: credential.value },
        ...(Object.keys(budget).length === 0 ? {} : { budget }),
        allowlist: policy === "allowlist" ? allowlist : [],
        // Taken from nowhere until the Run's network exists; then only from inside it.
        sources: [],
        ...(token === undefined ? {} : { token }),
      })
      .then(({ token: taken }) => proxiedEnvironment(request.cli, taken, gateway, policy)));
  let revoked: Promise<RunMeter | undefined> | undefined;
  // A Run never registered (refused before its claim) has nothing at the proxy to revoke.
  const revoke = (): Promise<RunMeter | undefined> =>
    (revoked ??=
      registering === undefined
        ? Promise.resolve(undefined)
        : registering.then(
            () => gateway.revoke(runId),
            () => undefined,
          ));
  let alive: (() => void) | undefined;
  let lastByteAt = 0;
  return {
    runId,
    gateway,
    register,
    registered: () => registering !== undefined,
    network: {
      kind: "internal",
      // A proxy in a cluster is a Pod's door, named by its NetworkPolicy; one on an engine joins the Run's network.
      ...(isKubeEgressGateway(gateway) ? { podPeer: gateway.peer } : { attach: { container: gateway.container, alias: gateway.alias } }),
      onOpened: async ({ subnets }) => {
        if (subnets.length === 0) throw new Error("the engine gave it no address range, so the Run's token cannot be bound to it");
        // Waited for while the proxy lives, however busy the host: only a proxy shown gone ends it.
        const bound = await whileAlive(gateway.bind(runId, subnets), { gone: gateway.gone, checkEveryMs: METER_READ_SLOW_MS }).catch((error: unknown) => {
          throw error instanceof GoneError ? new Error(`the egress proxy went away: it ${error.why}`) : error;
        });
        if (!bound) throw new Error("the egress proxy no longer knows the Run (was it restarted?)");
      },
      onAgentGone: () => void revoke().catch(() => undefined),
      liveness: (sign) => (alive = sign),
    },
    revoke,
    revoked: () => revoked !== undefined,
    observe: (meter) => {
      if (meter.lastByteAt === undefined || meter.lastByteAt <= lastByteAt) return;
      lastByteAt = meter.lastByteAt;
      alive?.();
    },
  };
}
