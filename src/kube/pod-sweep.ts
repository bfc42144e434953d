// The sweep by label on a cluster: a crashed orchestrator's Pods (and their NetworkPolicies and
// Secrets) removed at the next start. Invariant (as the sweep of containers): only what is past its deadline, or
// what is this session's own and not live (or what the caller's ownership rules call orphaned), is
// removed; another live process's Pods are left alone.
import { OWNER_LABEL, RUN_LABEL } from "../container/index.js";
import type { KubeApi } from "./kube-api.js";
import { DEADLINE_LABEL, ENV_SECRET_SUFFIX, SESSION_LABEL } from "./limits.js";

export type PodSweepOptions = {
  readonly namespace: string;
  readonly owner: string;
  /** This process's session: its own Pods that are not live go too. */
  readonly session: string;
  /** Whether a Run of this process is still going; default: none is. */
  readonly isLive?: (runId: string) => boolean;
  /** Epoch ms; default now. */
  readonly now?: number;
  /**
   * Whether a Pod may go, from its Run's id and its labels, when the caller decides it (the runtime's
   * ownership rules, which also take what a gone process on this host left); default: past its
   * deadline, or this session's own and not live.
   */
  readonly orphaned?: (runId: string, labels: Readonly<Record<string, string>>) => boolean;
};

/** Removes what may be removed and answers the names of the Pods it removed. */
export async function sweepPods(api: KubeApi, options: PodSweepOptions): Promise<string[]> {
  const now = options.now ?? Date.now();
  const pods = await api.listPods(options.namespace, `${OWNER_LABEL}=${options.owner}`);
  const removed: string[] = [];
  for (const pod of pods) {
    const name = pod.metadata?.name;
    const labels = pod.metadata?.labels ?? {};
    if (name === undefined || labels[OWNER_LABEL] !== options.owner) continue;
    if (!(options.orphaned?.(labels[RUN_LABEL] ?? "", labels) ?? orphanedByDefault(labels, options, now))) continue;
    await api.remove("Pod", options.namespace, name);
    await api.remove("NetworkPolicy", options.namespace, name);
    await api.remove("Secret", options.namespace, `${name}${ENV_SECRET_SUFFIX}`);
    removed.push(name);
  }
  return removed;
}

function orphanedByDefault(labels: Readonly<Record<string, string>>, options: PodSweepOptions, now: number): boolean {
  const deadline = Number(labels[DEADLINE_LABEL]);
  const pastDeadline = Number.isFinite(deadline) && deadline < now;
  return pastDeadline || (labels[SESSION_LABEL] === options.session && !(options.isLive?.(labels[RUN_LABEL] ?? "") ?? false));
}
