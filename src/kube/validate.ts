// Holds a rendered object to two schemas before anyone sees it: Kubernetes' own (kubernetes-models,
// types and formats) and ours (known-fields: no field outside the exact list). Invariant: an object
// that fails either is a bug of the renderer, refused loudly, never sent or printed.
// One model file each, not the whole API group: the v1 index alone takes ~0.3 s to load.
import { NetworkPolicy, type INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { Pod, type IPod } from "kubernetes-models/v1/Pod";
import { type FieldShape, NETWORK_POLICY_FIELDS, POD_FIELDS, unknownFields } from "./known-fields.js";
import { KubernetesError } from "./kube-error.js";
import type { RunNetworkPolicy, RunPod } from "./pod-types.js";

// Our types are Kubernetes' own made read-only (render-pod.ts builds IPod): the models take them as they are.
export function validatedPod(pod: RunPod): RunPod {
  return validated("Pod", pod, POD_FIELDS, () => new Pod(pod as IPod).validate());
}

export function validatedNetworkPolicy(policy: RunNetworkPolicy): RunNetworkPolicy {
  return validated("NetworkPolicy", policy, NETWORK_POLICY_FIELDS, () => new NetworkPolicy(policy as INetworkPolicy).validate());
}

function validated<T>(kind: string, object: T, shape: FieldShape, validate: () => void): T {
  const unknown = unknownFields(object, shape);
  if (unknown.length > 0)
    throw new KubernetesError(`the rendered ${kind} holds field(s) ${JSON.stringify(unknown)} that a Run's ${kind} never has; this is a bug, report it`);
  try {
    validate();
  } catch (error) {
    throw new KubernetesError(`the rendered ${kind} breaks Kubernetes' schema (${(error as Error).message}); this is a bug, report it`, { cause: error });
  }
  return object;
}
