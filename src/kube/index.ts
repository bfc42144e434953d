/**
 * Kubernetes, the engine beside Docker: a Run's composed spec rendered as a bare Pod (restartPolicy
 * Never, stdin open, every security field explicit) and the NetworkPolicy that fences it, both
 * validated offline against Kubernetes' schemas; and the namespace check a cluster must pass.
 * Pure: nothing here reaches a cluster. Not yet run against a live cluster.
 *
 * ```ts
 * const spec = composeSpec(validateAgentContainer({ image: "agent:1", user: "10002:10002" }), { runId, planArgs, deadlineSeconds: 3600 });
 * const manifest = renderPodManifest(spec, { namespace: "agents", outBytes: 256 * 1024 * 1024, network: { policy: "none" } });
 * process.stdout.write(manifestJson(manifest)); // pipe into `kubectl apply --dry-run=server -f -`
 * checkNamespace(namespaceObject); // throws KubernetesError unless pod-security.kubernetes.io/enforce=restricted
 * ```
 */
export type { PodManifest } from "./manifest.js";
export type { EgressProxyPeer, PodNetwork, PodOptions } from "./options.js";
export { KubernetesError } from "./kube-error.js";
export { manifestJson, renderPodManifest } from "./manifest.js";
export { checkNamespace } from "./namespace.js";
export { PSS_ENFORCE_LABEL } from "./limits.js";
