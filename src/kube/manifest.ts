// What `agentcage plan --kubernetes` prints and what the client path sends: a Run's Pod and its
// NetworkPolicy, rendered and validated together, as one List a user can `kubectl apply -f -`.
// Invariant: the printed objects are byte for byte what a Run would create (no Secret values: the
// Pod names its Secret's keys only).
import type { ComposedSpec } from "../container/index.js";
import type { PodOptions } from "./options.js";
import type { RunNetworkPolicy, RunPod } from "./pod-types.js";
import { renderNetworkPolicy } from "./render-network-policy.js";
import { renderPod } from "./render-pod.js";
import { validatedNetworkPolicy, validatedPod } from "./validate.js";

export type PodManifest = { readonly pod: RunPod; readonly networkPolicy: RunNetworkPolicy };

/** Throws KubernetesError naming the parameter for anything a Pod cannot honour. */
export function renderPodManifest(spec: ComposedSpec, options: PodOptions): PodManifest {
  return { pod: validatedPod(renderPod(spec, options)), networkPolicy: validatedNetworkPolicy(renderNetworkPolicy(spec, options)) };
}

/** The manifest as a `v1` List in JSON, which kubectl reads as it reads YAML. */
export function manifestJson(manifest: PodManifest): string {
  return `${JSON.stringify({ apiVersion: "v1", kind: "List", items: [manifest.networkPolicy, manifest.pod] }, null, 2)}\n`;
}
