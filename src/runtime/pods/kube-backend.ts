// The Kubernetes backend as a runtime option: which cluster (its API, made by createKubeApi or a
// test's), which namespace, and how a Run's Pod is placed; checked at construction, where the
// Operator wrote it. Invariant: a runtime with it makes no Docker container, network or volume: its
// Runs' files go through the Pod (runFiles "engine"), and what a Pod cannot honour is refused here.

import { AgentContainerError } from "../../container/index.js";
import type { KubeApi } from "../../kube/index.js";
import { describeValue } from "../misuse.js";

export type KubernetesBackend = {
  /** The cluster's API: `await createKubeApi()` (kubeconfig from the usual places), or `createKubeApi({ kubeconfig })`. */
  readonly api: KubeApi;
  /** Where each Run's Pod, NetworkPolicy and Secret are made; default "agentcage". Its PSS level is the Operator's to set (checkNamespace). */
  readonly namespace?: string;
  /** The cluster's RuntimeClass for a stronger sandbox (gVisor, Kata); default: the declaration's containerRuntime, else the cluster's default. */
  readonly runtimeClassName?: string;
  /** Default "IfNotPresent". */
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
  /** How long a Pod may take to be scheduled and pulled before its Run ends `unavailable`; default 120000 (POD_START_TIMEOUT_MS). */
  readonly startTimeoutMs?: number;
};

const BACKEND_FIELDS = ["api", "namespace", "runtimeClassName", "imagePullPolicy", "startTimeoutMs"];
const API_CALLS = ["createSecret", "createNetworkPolicy", "createPod", "watchPod", "attach", "exec", "remove", "listPods", "readNamespace"] as const;

/** Throws an AgentContainerError naming `kubernetes.<field>` for a backend that cannot mean anything. */
export function checkKubernetesBackend(backend: unknown): KubernetesBackend {
  if (typeof backend !== "object" || backend === null || Array.isArray(backend)) {
    throw new AgentContainerError(`kubernetes ${describeValue(backend)} is not an object; pass { api: await createKubeApi(), namespace: "agents" }`);
  }
  const unknown = Object.keys(backend).filter((key) => !BACKEND_FIELDS.includes(key));
  if (unknown.length > 0) throw new AgentContainerError(`kubernetes.${unknown[0]} is not an option it knows; use ${BACKEND_FIELDS.join(", ")}`);
  const given = backend as KubernetesBackend;
  const api = given.api as Record<string, unknown> | undefined;
  const missing = API_CALLS.find((call) => typeof api?.[call] !== "function");
  if (missing !== undefined) {
    throw new AgentContainerError(`kubernetes.api is not a KubeApi (it has no ${missing}); pass await createKubeApi(), which reads the usual kubeconfig`);
  }
  const start = given.startTimeoutMs;
  if (start !== undefined && (!Number.isSafeInteger(start) || start < 1)) {
    throw new AgentContainerError(`kubernetes.startTimeoutMs ${describeValue(start)} is not a whole number of ms; write e.g. 120000, or leave it out`);
  }
  // What a Pod cannot carry (a user by name, a finer CPU limit, labels or a namespace Kubernetes refuses) is refused
  // when a Run's Pod is rendered, as invalid_request naming it: the renderer loads Kubernetes' schemas, which a
  // runtime does not load before its first Pod (`agentcage plan --kubernetes` shows the refusal without a cluster).
  // What the declaration asks that a Pod cannot give is the backend's to refuse (pod-backend.ts).
  return given;
}

/** Where and how the backend places a Pod, as PodOptions take it. */
export function podPlacement(backend: Pick<KubernetesBackend, "namespace" | "runtimeClassName" | "imagePullPolicy">): {
  readonly namespace?: string;
  readonly runtimeClassName?: string;
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
} {
  return {
    ...(backend.namespace === undefined ? {} : { namespace: backend.namespace }),
    ...(backend.runtimeClassName === undefined ? {} : { runtimeClassName: backend.runtimeClassName }),
    ...(backend.imagePullPolicy === undefined ? {} : { imagePullPolicy: backend.imagePullPolicy }),
  };
}
