// The sweep of a runtime on Kubernetes: its owner's Pods (with their NetworkPolicies and Secrets)
// that are past their deadline, this session's own and not live, or left by a process on this host
// that is gone (a service started again: ownership.ts decides, as for containers), removed by label;
// said as a SweepResult, the Pods' names where a Docker sweep names containers. Invariant (Decision
// 8): a live Run's Pod, or another live process's, is never taken.

import type { KubernetesBackend } from "./kube-backend.js";
import { liveRuns } from "../live-runs.js";
import { orphanedBecause, ownershipFromLabels, thisProcess } from "../ownership/index.js";
import type { SweepResult } from "../ownership/index.js";

export async function sweepCluster(backend: KubernetesBackend, owner: string, session: string): Promise<SweepResult> {
  const { DEFAULT_NAMESPACE_FOR_PODS, sweepPods } = await import("../../kube/index.js");
  const context = { session, me: thisProcess(), isLive: liveRuns.has, now: Date.now() };
  const removed = await sweepPods(backend.api, {
    namespace: backend.namespace ?? DEFAULT_NAMESPACE_FOR_PODS,
    owner,
    session,
    isLive: liveRuns.has,
    orphaned: (runId, labels) => orphanedBecause(runId, ownershipFromLabels(labels), context) !== undefined,
  });
  return { removed, removedRunDirectories: [], removedNetworks: [], removedSessionStores: [], removedVolumes: [] };
}
