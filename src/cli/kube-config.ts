// The cluster `--kubernetes NAMESPACE` means, for `run` and `serve` alike: the one the usual kubeconfig
// names (KUBECONFIG, ~/.kube/config, or the in-cluster account). client-node loads only when asked.
import type { KubernetesBackend } from "../runtime/index.js";
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
