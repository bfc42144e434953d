// Where the egress proxy of a Run Backend's Runs goes, one implementation per backend: in the cluster
// beside the Pods (reached over exec), one per engine over several (a Run's network joins the one of
// the engine it is placed on), else one on the engine (or the Operator's, connected to). Each refuses,
// in its own words, a proxy given by hand that its Runs could not reach.
// Invariant: chosen with the backend (backend-choice.ts); nothing else asks which backend is in use.

import type { Logger } from "pino";
import type { Degradations, EngineSet, KubernetesBackend, PerBackend } from "../runtime/index.js";
import {
  connectEgressGateway,
  isKubeEgressGateway,
  startEgressGateway,
  startEgressGateways,
  startKubeEgressGateway,
  type EgressControlPath,
  type EgressGateway,
  type EgressGatewayConnection,
  type EgressGatewaySet,
} from "../gateway/index.js";
import { STAND_IN_CODEX_MODEL } from "../stand-in/index.js";
import type { NetworkPolicy } from "./network-policy.js";
import { AgentRunnerError } from "./runner-options.js";

/** What a proxy is started (or connected to) with, as an assembly gives it. */
export type ProxyStart = {
  /** Where a proxy started on an engine keeps its control files (the runner's Staging Directory). */
  readonly runtimeDir: string;
  /** How its control files are reached: through the engine when the Runs' files go that way. */
  readonly control: EgressControlPath;
  /** The stand-in model behind the proxy instead of the providers. */
  readonly standIn: boolean;
  /** The Operator's own proxy, connected to instead of starting one. */
  readonly egress?: EgressGatewayConnection;
  /** The networks through which a proxy started on an engine reaches the providers. */
  readonly egressNetworks?: readonly string[];
  readonly signal?: AbortSignal;
  /** The board a proxy per engine says a gone one on. */
  readonly degradations: Degradations;
  /** Told once a proxy is about to be started (never for the Operator's, connected to). */
  readonly onStart: () => void;
  /** Told while its container is still starting. */
  readonly onWaiting: (waitedMs: number) => void;
  readonly logger?: Logger;
};

export type EgressPlacement = {
  /** Throws AgentRunnerError, naming `egress` and what to pass, for a proxy (the runner's `egress`) these Runs cannot reach under `policy`. */
  readonly check: (egress: unknown, policy: NetworkPolicy) => void;
  /** The proxy a model or allowlist policy needs for these Runs, started or connected to; refuses what cannot reach them. */
  readonly start: (options: ProxyStart) => Promise<EgressGateway | EgressGatewaySet>;
};

/** One placement per backend, chosen with it. */
export const EGRESS_PLACEMENTS: PerBackend<EgressPlacement> = {
  engine: () => ON_THE_ENGINE,
  engines: (engines) => onEachEngine(engines),
  kubernetes: (kubernetes) => inTheCluster(kubernetes),
};

/** What a proxy given by hand is, as far as plain JavaScript can tell: one, one per engine, or one in a cluster. */
function kindOf(egress: unknown): { readonly single: boolean; readonly perEngine: boolean; readonly inCluster: boolean } {
  const gateway = egress as Record<string, unknown> | undefined;
  const perEngine = typeof gateway === "object" && gateway !== null && typeof gateway["forEngine"] === "function";
  const single = typeof gateway === "object" && gateway !== null && typeof gateway["register"] === "function" && typeof gateway["container"] === "string";
  return { single, perEngine, inCluster: single && isKubeEgressGateway(gateway) };
}

const IN_A_CLUSTER =
  "egress is a proxy in a cluster (startKubeEgressGateway), which a Docker container cannot reach; pass kubernetes with the same api and namespace, or egress: await startEgressGateway({ runtimeDir })";

/** One engine: one proxy on it, or the Operator's. */
const ON_THE_ENGINE: EgressPlacement = {
  check: (egress, policy) => {
    const { single, perEngine, inCluster } = kindOf(egress);
    if (inCluster) throw new AgentRunnerError(IN_A_CLUSTER);
    if (single) return;
    throw new AgentRunnerError(
      perEngine
        ? `egress is a proxy per engine (startEgressGateways), but no engines are given; pass the same engines, or one proxy: egress: await startEgressGateway({ runtimeDir })`
        : `networkPolicy ${JSON.stringify(policy)} needs egress: the egress proxy; pass egress: await startEgressGateway({ runtimeDir }), or connectEgressGateway(...) for one the Operator runs`,
    );
  },
  start: async (options) => {
    const codexModel = options.standIn ? { codexModel: STAND_IN_CODEX_MODEL } : {};
    if (options.egress !== undefined) return connectEgressGateway({ ...options.egress, ...codexModel });
    options.onStart();
    return startEgressGateway({
      runtimeDir: options.runtimeDir,
      control: options.control,
      standIn: options.standIn,
      ...codexModel,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onWaiting: options.onWaiting,
      ...(options.egressNetworks === undefined ? {} : { networks: options.egressNetworks }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
    });
  },
};

/** Several engines: a proxy of this process's on each. The Operator's one proxy lives on one engine, so it cannot serve them. */
function onEachEngine(engines: EngineSet): EgressPlacement {
  return {
    check: (egress, policy) => {
      const { single, perEngine, inCluster } = kindOf(egress);
      if (inCluster) throw new AgentRunnerError(IN_A_CLUSTER);
      if (perEngine) return;
      throw new AgentRunnerError(
        single
          ? `networkPolicy ${JSON.stringify(policy)} over engines needs a proxy on each engine, and egress is one proxy on one engine (a Run's network joins the proxy of the engine it is placed on); pass egress: await startEgressGateways({ runtimeDir, engines }) over the same engines`
          : `networkPolicy ${JSON.stringify(policy)} over engines needs egress: a proxy on each engine; pass egress: await startEgressGateways({ runtimeDir, engines }) over the same engines`,
      );
    },
    start: async (options) => {
      if (options.egress !== undefined) {
        throw new AgentRunnerError(
          `the Operator's egress proxy (egress) lives on one engine, and a Run over several engines joins the proxy of the engine it is placed on; leave egress out to start one on each engine (${engines.names.join(", ")}), or use one engine`,
        );
      }
      options.onStart();
      return startEgressGateways({
        engines,
        degradations: options.degradations,
        runtimeDir: options.runtimeDir,
        control: options.control,
        standIn: options.standIn,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onWaiting: options.onWaiting,
        ...(options.standIn ? { codexModel: STAND_IN_CODEX_MODEL } : {}),
        ...(options.egressNetworks === undefined ? {} : { networks: options.egressNetworks }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
    },
  };
}

/** The Runs are Pods: the proxy goes into their cluster, beside them, reached over exec; it admits Pods of its own namespace only. */
function inTheCluster(kubernetes: KubernetesBackend): EgressPlacement {
  return {
    check: (egress, policy) => {
      if (!kindOf(egress).inCluster) {
        throw new AgentRunnerError(
          `networkPolicy ${JSON.stringify(policy)} on kubernetes needs egress: the egress proxy in the cluster, which a Pod can reach; pass egress: await startKubeEgressGateway({ api, namespace }) with the same api and namespace`,
        );
      }
      const runs = kubernetes.namespace;
      const proxy = (egress as Record<string, unknown>)["namespace"];
      // Runs elsewhere than the proxy's namespace would reach nothing.
      if (runs !== undefined && runs !== proxy) {
        throw new AgentRunnerError(
          `kubernetes.namespace ${JSON.stringify(runs)} is not the egress proxy's namespace ${JSON.stringify(proxy)}; start the proxy in the Runs' namespace: startKubeEgressGateway({ api, namespace: ${JSON.stringify(runs)} })`,
        );
      }
    },
    start: async (options) => {
      if (options.egress !== undefined || options.egressNetworks !== undefined) {
        throw new AgentRunnerError(
          `${options.egress !== undefined ? "egress (the Operator's proxy)" : "egressNetworks"} lives on a Docker engine, which a Pod cannot reach; leave it out with kubernetes: the proxy is started in the cluster`,
        );
      }
      options.onStart();
      return startKubeEgressGateway({
        api: kubernetes.api,
        ...(kubernetes.namespace === undefined ? {} : { namespace: kubernetes.namespace }),
        ...(kubernetes.imagePullPolicy === undefined ? {} : { imagePullPolicy: kubernetes.imagePullPolicy }),
        ...(kubernetes.startTimeoutMs === undefined ? {} : { startTimeoutMs: kubernetes.startTimeoutMs }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onWaiting: options.onWaiting,
        standIn: options.standIn,
        ...(options.standIn ? { codexModel: STAND_IN_CODEX_MODEL } : {}),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      });
    },
  };
}
