// serve on Kubernetes (`--kubernetes NAMESPACE`): which of serve's options bind Docker and are refused
// with it, in the words `run --kubernetes` says, and which Run requests a Pod cannot honour (a 400
// naming the field). Invariant: nothing here starts or reads anything; the cluster is checked with the runners.
import { POD_CANNOT, podPolicyProxied, podPolicyRefusal, podRefusal, podStandInRefusal } from "../runner/index.js";
import type { ServiceRunRequest } from "./run-service-options.js";

/** serve's options that bind Docker (ServeOptions' own, declared here so that serve-options.ts can ask without a circle). */
type DockerBound = {
  readonly engines?: readonly string[] | undefined;
  readonly pool?: number | undefined;
  readonly poolIdleSeconds?: number | undefined;
  readonly sessions?: boolean | undefined;
  readonly standIn?: boolean | undefined;
  readonly runFiles?: string | undefined;
  readonly agentNetworks?: readonly string[] | undefined;
  readonly egress?: unknown;
  readonly egressNetworks?: readonly string[] | undefined;
  readonly runNetworkRange?: string | undefined;
  readonly networkPolicy?: string | undefined;
};

/** Where a request's refusal says the Pods come from. */
const SERVICE_ON_PODS = "this service, whose Runs are Pods (agentcage serve --kubernetes)";

/** The first of serve's options that cannot go with kubernetes, as the command spells it; undefined when none. */
export function kubernetesServeRefusal(options: DockerBound): string | undefined {
  const pool = options.pool ?? 0;
  const policy = options.networkPolicy;
  return [
    options.engines === undefined || options.engines.length === 0 ? undefined : podRefusal("--engine", POD_CANNOT.engine),
    pool === 0 ? undefined : podRefusal(`--pool ${pool}`, POD_CANNOT.pool),
    options.poolIdleSeconds === undefined ? undefined : podRefusal("--pool-idle-seconds", POD_CANNOT.pool),
    options.sessions === true ? podRefusal("--sessions", POD_CANNOT.session) : undefined,
    options.standIn === true && !podPolicyProxied(policy) ? podStandInRefusal() : undefined,
    options.runFiles === "disk" ? podRefusal("--run-files disk", POD_CANNOT.runFilesDisk) : undefined,
    options.agentNetworks === undefined ? undefined : podRefusal("--agent-network", POD_CANNOT.network),
    options.egress === undefined ? undefined : podRefusal("--egress-control-socket", POD_CANNOT.egress),
    options.egressNetworks === undefined ? undefined : podRefusal("--egress-network", POD_CANNOT.egress),
    options.runNetworkRange === undefined ? undefined : podRefusal("--run-network-range", POD_CANNOT.runNetworkRange),
    policy === undefined || policy === "none" || podPolicyProxied(policy) ? undefined : podPolicyRefusal(`--network-policy ${policy}`),
  ].find((refusal) => refusal !== undefined);
}

/** What a Run request asks that its Pod cannot honour, naming the field and its value; undefined when it can be served. */
export function podRequestRefusal(request: ServiceRunRequest): string | undefined {
  if (request.resumeSession !== undefined) return podRefusal(`resumeSession ${JSON.stringify(request.resumeSession)}`, POD_CANNOT.session, SERVICE_ON_PODS);
  return undefined;
}
