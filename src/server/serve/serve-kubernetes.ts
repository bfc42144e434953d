// What serve's backend refuses (on Kubernetes, `--kubernetes NAMESPACE`: the options that bind Docker),
// asked of it in the words `run --kubernetes` says, and which Run requests it cannot honour (a 400
// naming the field). Invariant: nothing here starts or reads anything; the cluster is checked with the runners.
import type { BackendAsk, BackendRefusals } from "../../runtime/index.js";
import type { ServiceRunRequest } from "../runs/index.js";

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

/** The first of serve's options its backend cannot go with, in its words, as the command spells the option; undefined when none. */
export function serveRefusal(options: DockerBound, backend: BackendRefusals): string | undefined {
  const pool = options.pool ?? 0;
  const policy = options.networkPolicy;
  const asks: Array<BackendAsk | undefined> = [
    options.engines === undefined || options.engines.length === 0 ? undefined : { needs: "engine", asked: "--engine" },
    pool === 0 ? undefined : { needs: "pool", asked: `--pool ${pool}` },
    options.poolIdleSeconds === undefined ? undefined : { needs: "pool", asked: "--pool-idle-seconds" },
    options.sessions === true ? { needs: "session", asked: "--sessions" } : undefined,
    options.standIn === true ? { needs: "standIn", asked: "--stand-in", ...(policy === undefined ? {} : { policy }) } : undefined,
    options.runFiles === "disk" ? { needs: "runFilesDisk", asked: "--run-files disk" } : undefined,
    options.agentNetworks === undefined ? undefined : { needs: "network", asked: "--agent-network" },
    options.egress === undefined ? undefined : { needs: "egress", asked: "--egress-control-socket" },
    options.egressNetworks === undefined ? undefined : { needs: "egress", asked: "--egress-network" },
    options.runNetworkRange === undefined ? undefined : { needs: "runNetworkRange", asked: "--run-network-range" },
    policy === undefined ? undefined : { needs: "networkPolicy", asked: `--network-policy ${policy}`, policy },
  ];
  return asks.map((ask) => (ask === undefined ? undefined : backend.refusal(ask))).find((refusal) => refusal !== undefined);
}

/** What a Run request asks that its backend cannot honour, naming the field and its value; undefined when it can be served. */
export function requestRefusalOf(backend: BackendRefusals): (request: ServiceRunRequest) => string | undefined {
  return (request) =>
    request.resumeSession === undefined
      ? undefined
      : backend.refusal({ needs: "session", asked: `resumeSession ${JSON.stringify(request.resumeSession)}`, audience: "service" });
}
