// The in-cluster egress proxies a dead process left: found by their owner label, judged by the
// caller (the runtime's ownership rules: host, pid and start time), and removed with their Service,
// NetworkPolicy and control Secret, so no proxy holding Runs' keys outlives the process that made it.

import type { KubeApi } from "./kube-api.js";
import { EGRESS_NAME_VALUE } from "./limits.js";
import { OWNER_LABEL } from "../container/index.js";

/** The Secret that holds a proxy's control secret, by the proxy's name. */
export function controlSecretName(proxy: string): string {
  return `${proxy}-control`;
}

/**
 * Removes every proxy in `namespace` that `orphaned` says why it is left (undefined: it is live),
 * each with its objects; answers what was removed and why. A removal that fails is left for the next sweep.
 */
export async function sweepEgressProxies(
  api: KubeApi,
  namespace: string,
  orphaned: (labels: Readonly<Record<string, string>>) => string | undefined,
): Promise<Array<{ readonly name: string; readonly why: string }>> {
  const removed: Array<{ name: string; why: string }> = [];
  for (const pod of await api.listPods(namespace, `${OWNER_LABEL}=${EGRESS_NAME_VALUE}`)) {
    const name = pod.metadata?.name;
    const labels = pod.metadata?.labels ?? {};
    if (name === undefined || labels[OWNER_LABEL] !== EGRESS_NAME_VALUE) continue;
    const why = orphaned(labels);
    if (why === undefined) continue;
    const gone = await Promise.allSettled([
      api.remove("Pod", namespace, name),
      api.remove("Service", namespace, name),
      api.remove("NetworkPolicy", namespace, name),
      api.remove("Secret", namespace, controlSecretName(name)),
    ]);
    if (gone.every((one) => one.status === "fulfilled")) removed.push({ name, why });
  }
  return removed;
}
