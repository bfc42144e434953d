// Holds a rendered object to two schemas before anyone sees it: Kubernetes' own (kubernetes-models,
// types and formats) and ours (known-fields: no field outside the exact list). Invariant: an object
// that fails either is a bug of the renderer, refused loudly, never sent or printed.
// One model file each, not the whole API group: the v1 index alone takes ~0.3 s to load.
import { NetworkPolicy, type INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { Pod, type IPod } from "kubernetes-models/v1/Pod";
import { Service, type IService } from "kubernetes-models/v1/Service";
import {
  type FieldShape,
  NETWORK_POLICY_FIELDS,
  POD_FIELDS,
  PROXY_NETWORK_POLICY_FIELDS,
  PROXY_POD_FIELDS,
  SERVICE_FIELDS,
  unknownFields,
} from "./known-fields.js";
import { KubernetesError } from "./kube-error.js";
import type { EgressProxyManifest, RunNetworkPolicy, RunPod } from "./pod-types.js";

// Our types are Kubernetes' own made read-only (render-pod.ts builds IPod): the models take them as they are.
export function validatedPod(pod: RunPod): RunPod {
  return validated("Pod", pod, POD_FIELDS, () => new Pod(pod as IPod).validate());
}

export function validatedNetworkPolicy(policy: RunNetworkPolicy): RunNetworkPolicy {
  return validated("NetworkPolicy", policy, NETWORK_POLICY_FIELDS, () => new NetworkPolicy(policy as INetworkPolicy).validate());
}

/** The in-cluster egress proxy's objects, each under its own exact list. */
export function validatedEgressProxy(manifest: EgressProxyManifest): EgressProxyManifest {
  return {
    pod: validated("egress proxy's Pod", manifest.pod, PROXY_POD_FIELDS, () => new Pod(manifest.pod as IPod).validate()),
    service: validated("egress proxy's Service", manifest.service, SERVICE_FIELDS, () => new Service(manifest.service as IService).validate()),
    networkPolicy: validated("egress proxy's NetworkPolicy", manifest.networkPolicy, PROXY_NETWORK_POLICY_FIELDS, () =>
      new NetworkPolicy(manifest.networkPolicy as INetworkPolicy).validate(),
    ),
  };
}

function validated<T>(kind: string, object: T, shape: FieldShape, validate: () => void): T {
  const unknown = unknownFields(object, shape);
  if (unknown.length > 0)
    throw new KubernetesError(
      `the rendered ${kind} holds field(s) ${JSON.stringify(unknown)} that ${kind.includes("egress") ? "the" : "a Run's"} ${kind} never has; this is a bug, report it`,
    );
  try {
    validate();
  } catch (error) {
    throw new KubernetesError(`the rendered ${kind} breaks Kubernetes' schema (${(error as Error).message}); this is a bug, report it`, { cause: error });
  }
  return object;
}
