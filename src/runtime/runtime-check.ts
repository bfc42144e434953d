// check(): whether a Run could start now, asked of the engine (or the cluster) without starting anything:
// it answers, and it holds the declared image; with several engines, each one's answer, ready when one
// can take a Run. Invariant: it never throws; what cannot be asked is false.

import type { Engine } from "../engine/index.js";
import type { ClusterCheck } from "../kube/index.js";
import type { KubernetesBackend } from "./pods/index.js";
import type { EngineSet } from "./engines/index.js";

/** One engine of several, as check() found it. */
export type EngineCheck = {
  readonly name: string;
  readonly engine: boolean;
  readonly image: boolean;
  /** Its Runs now, and how many it may run. */
  readonly running: number;
  readonly slots: number;
  /** What its last failed ping said, while it does not answer. */
  readonly why?: string;
};

export type RuntimeCheck = {
  readonly engine: boolean;
  readonly image: boolean;
  /** With several engines: each one. */
  readonly engines?: readonly EngineCheck[];
  /** On Kubernetes: the cluster (its API server answers, the namespace may hold a Run's Pod) instead of a Docker engine. */
  readonly cluster?: ClusterCheck;
  /**
   * Why it cannot run an agent now, one sentence each, in general words (an engine by the name it
   * was given; no address, no namespace): what a readiness probe may tell anyone. None when it can.
   */
  readonly unready?: readonly string[];
};

/**
 * On Kubernetes, `engine` is whether a Pod can go to the namespace now; `image` is true, since the
 * cluster pulls it and only a Pod's start can say whether it can.
 */
export async function checkKubernetes(backend: KubernetesBackend): Promise<RuntimeCheck> {
  const { checkCluster, DEFAULT_NAMESPACE_FOR_PODS } = await import("../kube/index.js");
  const cluster = await checkCluster(backend.api, backend.namespace ?? DEFAULT_NAMESPACE_FOR_PODS);
  const unready =
    cluster.problem === undefined
      ? []
      : [cluster.answers ? "the Kubernetes namespace cannot hold a Run's Pod now" : "the Kubernetes API server does not answer"];
  return { engine: cluster.problem === undefined, image: true, cluster, unready };
}

export async function checkEngine(engine: Engine, image: string): Promise<RuntimeCheck> {
  const engineAnswers = await engine.ping().then(
    () => true,
    () => false,
  );
  if (!engineAnswers) return { engine: false, image: false, unready: ["the container engine does not answer", "the agent image is not on the engine"] };
  const held = await engine.hasImage(image).catch(() => false);
  return { engine: true, image: held, unready: held ? [] : ["the agent image is not on the engine"] };
}

/** Each engine of the set, by its last ping and an image check now; true overall when one engine can take a Run. */
export async function checkEngineSet(set: EngineSet, image: string): Promise<RuntimeCheck> {
  const held = await set.holdsImage(image);
  const engines = set.status().map((s) => ({
    name: s.name,
    // Slow is not gone: a slow engine keeps its Runs and can take more, so it counts as one that answers.
    engine: (s.answers || s.slow) && !s.drained,
    image: held.get(s.name) === true,
    running: s.running,
    slots: s.slots,
    ...(s.why === undefined ? {} : { why: s.why }),
  }));
  const usable = engines.some((e) => e.engine && e.image);
  const unready = usable
    ? []
    : engines.map((one) =>
        !one.engine
          ? `engine ${JSON.stringify(one.name)}: it does not answer`
          : !one.image
            ? `engine ${JSON.stringify(one.name)}: the agent image is not on it`
            : `engine ${JSON.stringify(one.name)}: it cannot run an agent now`,
      );
  return { engine: engines.some((e) => e.engine), image: usable, engines, unready };
}
