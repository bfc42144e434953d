// What serve runs its Runs on, made once from its options: the one Docker engine, the engines --engine
// names (one set, both runners' alike: an engine's slots and drain count over every Run of the service),
// or the cluster of --kubernetes. Each kind says for itself what the runners are given, what a start
// must find ready, which series /metrics adds, and what is let go of at the end; which kind it is is
// the runner's one choice (ownForBackend), never asked here.
// Invariant: what it made (an engine set) is let go of by close(), and by nothing else.

import { ownForBackend, type AgentRunner } from "../../runner/index.js";
import { engineSetOf, type EngineSet, type KubernetesBackend, type PerBackend } from "../../runtime/index.js";
import { engineSeries, type BackendSeries } from "../metrics/index.js";
import { ServeError, type ServeOptions } from "./serve-options.js";

export type ServiceBackend = {
  /** What both runners are given to run there: the engine set or the cluster; nothing for the one default engine. */
  readonly runner: { readonly engines?: EngineSet; readonly kubernetes?: KubernetesBackend };
  /** Refuses serve's start when what it runs on cannot hold a Run (a cluster's API server, its namespace), saying what to do; else resolves. */
  readonly refuseUnready: (runner: AgentRunner) => Promise<void>;
  /** Its own series on /metrics (each engine's, over several); none for the others. */
  readonly series: BackendSeries;
  /** Lets go of what was made for it (the engine set's pings). */
  readonly close: () => void;
};

/** The backend serve's options name; throws ServeError for --engine values it cannot take. */
export function serviceBackendOf(options: ServeOptions, slots: number): ServiceBackend {
  // Only a cluster can be refused below, and --engine with --kubernetes was refused with serve's options: no set is left made.
  try {
    return ownForBackend({ engines: engineSetFor(options, slots), kubernetes: options.kubernetes }, SERVICE_BACKENDS);
  } catch (error) {
    throw error instanceof ServeError ? error : new ServeError(error instanceof Error ? error.message : String(error));
  }
}

const NOTHING = (): void => undefined;

const SERVICE_BACKENDS: PerBackend<ServiceBackend> = {
  // The runner's own default engine: nothing to give it, check at the start, or let go of.
  engine: () => ({ runner: {}, refuseUnready: async () => undefined, series: NOTHING, close: NOTHING }),
  engines: (set) => ({ runner: { engines: set }, refuseUnready: async () => undefined, series: engineSeries(set.status), close: () => set.close() }),
  kubernetes: (kubernetes) => ({ runner: { kubernetes }, refuseUnready: refuseUnreadyCluster, series: NOTHING, close: NOTHING }),
};

/** A cluster whose API server does not answer, or whose namespace may not hold a Run's Pod, refuses the start, saying what to do. */
async function refuseUnreadyCluster(runner: AgentRunner): Promise<void> {
  const { cluster } = await runner.check();
  if (cluster?.problem !== undefined) throw new Error(`--kubernetes ${JSON.stringify(cluster.namespace)} cannot be served: ${cluster.problem}`);
}

/**
 * The engines `--engine` names, each taking at most `slots` Runs unless its own slots= says; undefined
 * when none is named. A parse of the option, before the backend is chosen from it.
 */
function engineSetFor(options: ServeOptions, slots: number): EngineSet | undefined {
  if (options.engines === undefined || options.engines.length === 0) return undefined;
  try {
    return engineSetOf(options.engines, "--engine", slots);
  } catch (error) {
    throw new ServeError(error instanceof Error ? error.message : String(error));
  }
}
