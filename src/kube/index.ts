/**
 * Kubernetes, the engine beside Docker: a Run's composed spec rendered as a bare Pod (restartPolicy
 * Never, stdin open, every security field explicit) and the NetworkPolicy that fences it, both
 * validated offline against Kubernetes' schemas; the namespace check a cluster must pass; and the
 * client path (create, watch, attach, exit, removal, sweep by label) through client-node, which
 * loads only when createKubeApi is called. Tested against a recorded exchange of the API's wire
 * format; not yet run against a live cluster.
 *
 * ```ts
 * const spec = composeSpec(validateAgentContainer({ image: "agent:1", user: "10002:10002" }), { runId, planArgs, deadlineSeconds: 3600 });
 * const options = { namespace: "agents", outBytes: 256 * 1024 * 1024, network: { policy: "none" } } as const;
 * process.stdout.write(manifestJson(renderPodManifest(spec, options))); // pipe into `kubectl apply --dry-run=server -f -`
 * checkNamespace(namespaceObject); // throws KubernetesError unless pod-security.kubernetes.io/enforce=restricted
 * await checkCluster(api, "agents"); // { server, namespace, answers, problem? }: the API server answers, the namespace is restricted
 * const result = await runPod(await createKubeApi(), spec, options, { stdin: "Say hi" }); // { kind: "exited", exitCode, stdout, ... }
 * ```
 */
export type { ClusterCheck } from "./cluster-check.js";
export type { AttachSession, ExecSession, ExecStatus, KubeApi, KubeApiOptions } from "./kube-api.js";
export type { PodManifest } from "./manifest.js";
export type { EgressProxyPeer, PodFiles, PodNetwork, PodOptions } from "./options.js";
export type { PodCollected, PodRunOptions, PodRunResult } from "./pod-run.js";
export type {
  KubeMetadata,
  LabelSelector,
  RunContainer,
  RunNetworkPolicy,
  RunPod,
  RunSecret,
  SeccompProfile,
} from "./pod-types.js";
export type { ContainerStatus, PodObject } from "./pod-status.js";
export type { PodSweepOptions } from "./pod-sweep.js";
export { checkCluster } from "./cluster-check.js";
export { createKubeApi } from "./kube-api.js";
export { startEgressProxyPod } from "./egress-proxy.js";
export { sweepEgressProxies } from "./egress-sweep.js";
export { CONTROL_SECRET_KEY, egressPeer } from "./render-egress.js";
export { KubernetesError } from "./kube-error.js";
export { manifestJson, renderPodManifest } from "./manifest.js";
export { checkNamespace } from "./namespace.js";
export { DEFAULT_NAMESPACE as DEFAULT_NAMESPACE_FOR_PODS, PSS_ENFORCE_LABEL } from "./limits.js";
export { runPod } from "./pod-run.js";
export { sweepPods } from "./pod-sweep.js";
