// What a Run on Kubernetes cannot be asked for: the Kubernetes backend's own answer to a BackendAsk,
// in the one set of words `run --kubernetes`, `serve --kubernetes`, the service's per-Run refusals and
// createAgentRunner's options all say. Invariant: each says why and what to do.

import type { BackendAsk, BackendNeed } from "./run-backend.js";

/** Why a Pod cannot honour it, by what was asked. */
const POD_CANNOT: Partial<Record<BackendNeed, string>> = {
  network: "a Docker network, which a Pod has none of",
  runFilesDisk: "a cluster's nodes do not share this host's disk",
  session: "a session store does not reach a Pod yet",
  engine: "a Docker engine; a Run's Pod goes to the cluster the kubeconfig names",
  pool: "Docker containers started ahead; every Pod starts cold",
  egress: "an egress proxy on a Docker engine, which a Pod cannot reach",
  runNetworkRange: "the range of a Run's own Docker network; a Pod's reach is its NetworkPolicy",
};

/** Where a Service Run's refusal says its Pods come from. */
const SERVICE_ON_PODS = "this service, whose Runs are Pods (agentcage serve --kubernetes)";

/** The Kubernetes backend's refusal of `ask`; undefined when a Pod can give it. */
export function podRefusalOf(ask: BackendAsk): string | undefined {
  const { needs, asked, policy } = ask;
  if (ask.audience === "library") return optionRefusal(ask);
  const where = ask.audience === "service" ? SERVICE_ON_PODS : "--kubernetes";
  if (needs === "standIn") return podPolicyProxied(policy) ? undefined : podStandInRefusal(where);
  if (needs === "networkPolicy") return policy === undefined || policy === "none" || podPolicyProxied(policy) ? undefined : podPolicyRefusal(asked, where);
  if (needs === "tmpfsSecrets")
    return "tmpfsSecrets are written by the pool's launcher, which a Pod does not run yet; give the credential in the Run's env on Kubernetes";
  if (needs === "runNetwork") {
    return "a Run's own network (network policy open, or a Docker network) is not a Pod's: its Pod reaches the egress proxy in the cluster (model, allowlist) or nothing; run it so on Kubernetes, or on Docker";
  }
  const why = POD_CANNOT[needs];
  return why === undefined ? undefined : `${asked} (${why}) cannot go with ${where}; leave it out`;
}

/** A createAgentRunner option a Pod cannot honour, in the library's words (they name its calls). */
function optionRefusal({ needs, asked, policy }: BackendAsk): string | undefined {
  if (needs === "session") return `${asked} cannot go with kubernetes yet: a session store does not reach a Pod; leave sessions out, or run on Docker`;
  if (needs === "network" || (needs === "networkPolicy" && policy === "open")) {
    return `${asked} cannot go with kubernetes: a Run's Pod reaches only what its NetworkPolicy lets it, the egress proxy in the cluster (networkPolicy "model" or "allowlist", with egress: await startKubeEgressGateway({ api, namespace })) or nothing ("none"); use one of those, or run on Docker`;
  }
  return undefined;
}

/** The stand-in on Kubernetes: it runs behind the egress proxy in the cluster, so only with a policy that reaches it. */
function podStandInRefusal(where: string): string {
  return `--stand-in with ${where} needs --network-policy model or allowlist: the stand-in model runs behind the egress proxy in the cluster, which a Pod reaches only under those; add one, or leave --stand-in out`;
}

/** A network policy a Pod cannot have: its reach is its NetworkPolicy, to the egress proxy in the cluster or nothing. */
function podPolicyRefusal(asked: string, where: string): string {
  return `${asked} cannot go with ${where}: a Pod reaches only what its NetworkPolicy lets it, the egress proxy agentcage starts in the cluster (model, allowlist) or nothing (none); use one of those, or run on Docker`;
}

/** Whether a network policy reaches the egress proxy, which on Kubernetes runs in the cluster beside the Pods. */
function podPolicyProxied(policy: string | undefined): boolean {
  return policy === "model" || policy === "allowlist";
}
