// Whether a cluster can take a Run's Pod now: its API server answers, the namespace is there, and it
// enforces the restricted Pod Security standard (checkNamespace). Invariant: it never throws; what is
// wrong is one sentence that names the server or the namespace and says what to do.
import type { KubeApi } from "./kube-api.js";
import { checkNamespace } from "./namespace.js";
import { PSS_ENFORCE_LABEL, PSS_REQUIRED_LEVEL } from "./limits.js";

export type ClusterCheck = {
  /** The API server's address, as the kubeconfig names it. */
  readonly server: string;
  readonly namespace: string;
  /** Whether the API server answered at all. */
  readonly answers: boolean;
  /** What keeps a Pod from going there, when something does. */
  readonly problem?: string;
};

export async function checkCluster(api: KubeApi, namespace: string): Promise<ClusterCheck> {
  const at = { server: api.server, namespace };
  try {
    checkNamespace(await api.readNamespace(namespace));
    return { ...at, answers: true };
  } catch (error) {
    const status = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (typeof status !== "number") {
      // A KubernetesError from checkNamespace has a string code: the server answered, the namespace is not restricted.
      if (status === "kubernetes_refused") return { ...at, answers: true, problem: message };
      return {
        ...at,
        answers: false,
        problem: `the Kubernetes API server at ${api.server} does not answer (${firstLine(message)}); check that the cluster is up and that the kubeconfig (KUBECONFIG, ~/.kube/config, or the Pod's service account) names it`,
      };
    }
    if (status === 404) {
      return {
        ...at,
        answers: true,
        problem: `namespace ${JSON.stringify(namespace)} does not exist on the Kubernetes API server at ${api.server}; create it (\`kubectl create namespace ${namespace}\`) and run \`kubectl label namespace ${namespace} ${PSS_ENFORCE_LABEL}=${PSS_REQUIRED_LEVEL}\``,
      };
    }
    return {
      ...at,
      answers: true,
      problem: `the Kubernetes API server at ${api.server} refused to read namespace ${JSON.stringify(namespace)} (HTTP ${status}); let the kubeconfig's user get that namespace (a ClusterRole with get on namespaces, resourceNames [${namespace}])`,
    };
  }
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 300);
}
