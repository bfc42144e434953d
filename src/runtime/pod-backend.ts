// The Run Backend of a Kubernetes cluster: every Run a Pod (pod-launch.ts), its files through the API
// (runFiles "engine"), no Docker network or volume; the sweep is by label in its namespace; check()
// asks the cluster; what a Pod cannot honour it refuses in its own words (pod-refusals.ts).
// Invariant: a runtime on it makes no Docker container, network or volume.

import { AgentContainerError } from "../container/index.js";
import { createDockerEngine } from "../engine/index.js";
import type { KubernetesBackend } from "./pods/index.js";
import { launchPod } from "./pod-launch.js";
import { podRefusalOf } from "./pod-refusals.js";
import { sweepCluster } from "./pods/index.js";
import { placeOn, type RunBackend } from "./run-backend.js";
import { checkKubernetes } from "./runtime-check.js";

export function podBackend(kubernetes: KubernetesBackend): RunBackend {
  // No Docker container is made; the engine is only what a Run's context carries.
  const engine = createDockerEngine();
  return {
    description: `Kubernetes, namespace ${JSON.stringify(kubernetes.namespace ?? "agentcage")}`,
    engine,
    runFiles: "engine",
    refusal: podRefusalOf,
    refuseOptions: (options, container) => {
      if (options.pool !== undefined) {
        throw new AgentContainerError("kubernetes is given with pool; a runtime runs its Runs on one backend: leave pool out, or kubernetes");
      }
      if (options.runFiles === "disk") {
        throw new AgentContainerError("runFiles \"disk\" cannot go with kubernetes: a cluster's nodes do not share this host's disk; leave runFiles out");
      }
      if (options.writeBound === "mount") {
        throw new AgentContainerError(
          'writeBound "mount" cannot go with kubernetes: a Pod\'s out/ is a memory-backed emptyDir of its own size; leave writeBound out',
        );
      }
      if (container.networks !== undefined && container.networks.length > 0) {
        throw new AgentContainerError(
          `networks ${JSON.stringify(container.networks)} are Docker networks, which a Pod has none of; leave networks out (a Run's Pod reaches nothing, fenced by its NetworkPolicy)`,
        );
      }
    },
    watch: () => undefined,
    place: () => Promise.resolve(placeOn(engine)),
    // A Pod has no Docker network: its reach is its NetworkPolicy (pod-launch.ts).
    networksOf: () => undefined,
    launch: (ctx, state, spec, planned, staged) => launchPod(kubernetes, ctx, state, spec, planned, staged),
    sweep: (scope) => sweepCluster(kubernetes, scope.owner, scope.session),
    check: () => checkKubernetes(kubernetes),
  };
}
