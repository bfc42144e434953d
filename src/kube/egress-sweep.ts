// The in-cluster egress proxies a dead process left: found by their owner label, judged by the
// caller (the runtime's ownership rules: host, pid and start time), and removed with their Service,
// NetworkPolicy and control Secret, so no proxy holding Runs' keys outlives the process that made it.

import type { KubeApi } from "./kube-api.js";
import { EGRESS_NAME_VALUE } from "./limits.js";
import { OWNER_LABEL } from "../container/index.js";
import { apiMessage } from "./kube-error.js";
import { controlSecretName } from "./render-egress.js";

/**
 * Removes a proxy's Pod, Service, NetworkPolicy and control Secret, trying every one whatever another
 * answers (one already gone is no error); answers what could not be removed, with the API's words.
 */
export async function removeEgressProxy(api: KubeApi, namespace: string, name: string): Promise<string[]> {
  const objects = [
    ["Pod", name],
    ["Service", name],
    ["NetworkPolicy", name],
    ["Secret", controlSecretName(name)],
  ] as const;
  const left: string[] = [];
  for (const [kind, object] of objects)
    await api.remove(kind, namespace, object).catch((error: unknown) => left.push(`${kind} ${object} (${apiMessage(error)})`));
  return left;
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
    if ((await removeEgressProxy(api, namespace, name)).length === 0) removed.push({ name, why });
  }
  return removed;
}
