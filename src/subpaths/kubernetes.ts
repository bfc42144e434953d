/**
 * `agentcage/kubernetes`: Runs as Pods on a cluster. The API client (loaded only when
 * `createKubeApi()` is called), the cluster's and the namespace's checks, a composed spec rendered
 * as a Pod, a Pod's Run and the sweep of Pods, and the egress proxy in the cluster.
 *
 * ```ts
 * import { createAgentRunner } from "agentcage";
 * import { checkCluster, createKubeApi } from "agentcage/kubernetes";
 *
 * const api = await createKubeApi(); // the kubeconfig's current context
 * console.log(await checkCluster(api, "agents")); // { server, namespace, answers, problem? }
 * const agents = createAgentRunner({ image: "agentcage-agent:latest", kubernetes: { api, namespace: "agents" } });
 * ```
 */
export type {
  AttachSession,
  ClusterCheck,
  ContainerStatus,
  EgressProxyPeer,
  ExecSession,
  ExecStatus,
  KubeApi,
  KubeApiOptions,
  KubeMetadata,
  LabelSelector,
  PodCollected,
  PodFiles,
  PodManifest,
  PodNetwork,
  PodObject,
  PodOptions,
  PodRunOptions,
  PodRunResult,
  PodSweepOptions,
  RunContainer,
  RunNetworkPolicy,
  RunPod,
  RunSecret,
  SeccompProfile,
} from "../kube/index.js";
export {
  KubernetesError,
  PSS_ENFORCE_LABEL,
  checkCluster,
  checkNamespace,
  createKubeApi,
  manifestJson,
  renderPodManifest,
  runPod,
  sweepPods,
} from "../kube/index.js";
export type { KubernetesBackend } from "../runtime/index.js";
export type { KubeEgressGateway, KubeEgressGatewayOptions } from "../gateway/index.js";
export { startKubeEgressGateway } from "../gateway/index.js";
