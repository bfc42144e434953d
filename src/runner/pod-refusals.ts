// What a Run on Kubernetes cannot be asked for, in the one set of words `run --kubernetes`, `serve
// --kubernetes` and the service's per-Run refusals all say. Invariant: each says why and what to do.

/** Why a Pod cannot honour it, by what was asked. */
export const POD_CANNOT = {
  network: "a Docker network, which a Pod has none of",
  runFilesDisk: "a cluster's nodes do not share this host's disk",
  session: "a session store does not reach a Pod yet",
  engine: "a Docker engine; a Run's Pod goes to the cluster the kubeconfig names",
  pool: "Docker containers started ahead; every Pod starts cold",
  egress: "an egress proxy on a Docker engine, which a Pod cannot reach",
  runNetworkRange: "the range of a Run's own Docker network; a Pod's reach is its NetworkPolicy",
} as const;

/** `asked` (a flag, or a request's field and value) refused: `where` names what runs Pods. */
export function podRefusal(asked: string, why: string, where = "--kubernetes"): string {
  return `${asked} (${why}) cannot go with ${where}; leave it out`;
}

/** The stand-in on Kubernetes: it runs behind the egress proxy in the cluster, so only with a policy that reaches it. */
export function podStandInRefusal(where = "--kubernetes"): string {
  return `--stand-in with ${where} needs --network-policy model or allowlist: the stand-in model runs behind the egress proxy in the cluster, which a Pod reaches only under those; add one, or leave --stand-in out`;
}

/** A network policy a Pod cannot have: its reach is its NetworkPolicy, to the egress proxy in the cluster or nothing. */
export function podPolicyRefusal(asked: string, where = "--kubernetes"): string {
  return `${asked} cannot go with ${where}: a Pod reaches only what its NetworkPolicy lets it, the egress proxy agentcage starts in the cluster (model, allowlist) or nothing (none); use one of those, or run on Docker`;
}

/** Whether a network policy reaches the egress proxy, which on Kubernetes runs in the cluster beside the Pods. */
export function podPolicyProxied(policy: string | undefined): boolean {
  return policy === "model" || policy === "allowlist";
}
