// Kubernetes as a Run's place: the backend's settings, a Pod's container and the sweep of Pods.
// Invariant: exports only, no code.
export type { KubernetesBackend } from "./kube-backend.js";
export { checkKubernetesBackend, podPlacement } from "./kube-backend.js";
export { runPodContainer } from "./pod-container.js";
export { sweepCluster } from "./pod-sweep.js";
