// The cluster `--kubernetes NAMESPACE` means, for `run`, `serve` and `doctor` alike: the one the usual
// kubeconfig names (KUBECONFIG, ~/.kube/config, or the in-cluster account). client-node loads only when asked.
import type { KubernetesBackend } from "../runtime/index.js";
import type { DoctorCheck } from "./doctor-checks.js";
import { UsageError } from "./options.js";

/** The backend for `namespace`; a kubeconfig that cannot be read is a usage error naming it. */
export async function kubernetesBackend(namespace: string): Promise<KubernetesBackend> {
  const { createKubeApi } = await import("../kube/index.js");
  try {
    return { api: await createKubeApi(), namespace };
  } catch (error) {
    throw new UsageError(
      `--kubernetes ${JSON.stringify(namespace)} needs a kubeconfig (KUBECONFIG, ~/.kube/config, or a Pod's service account), and it could not be read: ${(error as Error).message}`,
    );
  }
}

/** doctor's line for the cluster: its API server answers and the namespace may hold a Run's Pod, or what is wrong and what to do. */
export async function clusterCheck(backend: KubernetesBackend): Promise<DoctorCheck> {
  const { checkCluster, DEFAULT_NAMESPACE_FOR_PODS } = await import("../kube/index.js");
  const found = await checkCluster(backend.api, backend.namespace ?? DEFAULT_NAMESPACE_FOR_PODS);
  if (found.problem === undefined) {
    return {
      check: "cluster",
      status: "ok",
      detail: `the Kubernetes API server at ${found.server} answers; namespace ${JSON.stringify(found.namespace)} enforces the restricted Pod Security standard`,
    };
  }
  // Each problem is one sentence: what is wrong; what to do.
  const at = found.problem.indexOf("; ");
  return at < 0
    ? { check: "cluster", status: "fail", detail: found.problem }
    : { check: "cluster", status: "fail", detail: found.problem.slice(0, at), fix: found.problem.slice(at + 2) };
}
