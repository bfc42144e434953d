// A Run's NetworkPolicy: what its Pod may reach, selected by the Run's own label. Invariant: no
// ingress ever; egress nothing under `none`, and only the egress proxy (its Pods, its one port)
// under `model` and `allowlist` (the proxy decides what lies behind it). Not even DNS: the agent
// is given the proxy by address.
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { type ComposedSpec, RUN_LABEL } from "../container/index.js";
import { KubernetesError } from "./kube-error.js";
import { checkedLabels, checkedPort } from "./names.js";
import type { PodOptions } from "./options.js";
import type { RunNetworkPolicy } from "./pod-types.js";
import { podLabels, podNamespace } from "./render-pod.js";

export function renderNetworkPolicy(spec: ComposedSpec, options: PodOptions): RunNetworkPolicy {
  const network = options.network;
  const runLabel = spec.labels[RUN_LABEL] ?? "";
  const egress =
    network.policy === "none"
      ? []
      : [
          {
            to: [
              {
                podSelector: { matchLabels: checkedLabels(nonEmpty("proxy.podLabels", network.proxy.podLabels)) },
                ...(network.proxy.namespaceLabels === undefined
                  ? {}
                  : { namespaceSelector: { matchLabels: checkedLabels(nonEmpty("proxy.namespaceLabels", network.proxy.namespaceLabels)) } }),
              },
            ],
            ports: [{ protocol: "TCP" as const, port: checkedPort("proxy.port", network.proxy.port) }],
          },
        ];
  const policy: INetworkPolicy = {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: spec.name, namespace: podNamespace(options), labels: podLabels(spec) },
    spec: {
      podSelector: { matchLabels: { [RUN_LABEL]: runLabel } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress,
    },
  };
  return policy;
}

/** An empty selector would select every Pod (or namespace): the opposite of one door. */
function nonEmpty(option: string, labels: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (Object.keys(labels).length === 0) {
    throw new KubernetesError(
      `${option} is empty, which would select every Pod; name the egress proxy's own labels, e.g. { "app.kubernetes.io/name": "agentcage-egress" }`,
    );
  }
  return labels;
}
