// The exact fields a Run's Pod and NetworkPolicy (and the in-cluster egress proxy's Pod, Service and
// NetworkPolicy) may hold, each under the Kubernetes schema that
// defines it: anything else in a rendered object is refused, so no field (a hostPath, a host
// namespace, a typo the API server would drop) can slip in. A test checks every name here against
// kubernetes-models' own schemas, so this list cannot name a field Kubernetes does not have.

/** A leaf: a scalar, a list of scalars, or (map) an object of string values such as labels. */
type Leaf = "value" | "map";
export type FieldShape = Leaf | { readonly schema: string; readonly fields: Readonly<Record<string, FieldShape>> } | { readonly each: FieldShape };

const node = (schema: string, fields: Readonly<Record<string, FieldShape>>): FieldShape => ({ schema, fields });
const each = (shape: FieldShape): FieldShape => ({ each: shape });

const METADATA = node("IoK8sApimachineryPkgApisMetaV1ObjectMeta", { name: "value", namespace: "value", labels: "map" });
const SECCOMP = node("IoK8sApiCoreV1SeccompProfile", { type: "value" });

/** Every container of the Pod, the agent's and its helpers', under the same exact list. */
const CONTAINER_FIELDS: Readonly<Record<string, FieldShape>> = {
  name: "value",
  image: "value",
  imagePullPolicy: "value",
  command: "value",
  args: "value",
  workingDir: "value",
  env: each(
    node("IoK8sApiCoreV1EnvVar", {
      name: "value",
      value: "value",
      valueFrom: node("IoK8sApiCoreV1EnvVarSource", {
        secretKeyRef: node("IoK8sApiCoreV1SecretKeySelector", { name: "value", key: "value", optional: "value" }),
      }),
    }),
  ),
  stdin: "value",
  stdinOnce: "value",
  tty: "value",
  securityContext: node("IoK8sApiCoreV1SecurityContext", {
    runAsUser: "value",
    runAsGroup: "value",
    runAsNonRoot: "value",
    privileged: "value",
    allowPrivilegeEscalation: "value",
    readOnlyRootFilesystem: "value",
    capabilities: node("IoK8sApiCoreV1Capabilities", { drop: "value" }),
    seccompProfile: SECCOMP,
  }),
  resources: node("IoK8sApiCoreV1ResourceRequirements", { limits: "map", requests: "map" }),
  volumeMounts: each(node("IoK8sApiCoreV1VolumeMount", { name: "value", mountPath: "value", readOnly: "value" })),
};
const CONTAINER = node("IoK8sApiCoreV1Container", CONTAINER_FIELDS);

const POD_SPEC_FIELDS: Readonly<Record<string, FieldShape>> = {
  restartPolicy: "value",
  automountServiceAccountToken: "value",
  enableServiceLinks: "value",
  hostNetwork: "value",
  hostPID: "value",
  hostIPC: "value",
  shareProcessNamespace: "value",
  activeDeadlineSeconds: "value",
  terminationGracePeriodSeconds: "value",
  runtimeClassName: "value",
  hostname: "value",
  hostAliases: each(node("IoK8sApiCoreV1HostAlias", { ip: "value", hostnames: "value" })),
  dnsPolicy: "value",
  dnsConfig: node("IoK8sApiCoreV1PodDNSConfig", { nameservers: "value" }),
  securityContext: node("IoK8sApiCoreV1PodSecurityContext", { runAsUser: "value", runAsGroup: "value", runAsNonRoot: "value", seccompProfile: SECCOMP }),
  containers: each(CONTAINER),
  initContainers: each(CONTAINER),
  volumes: each(node("IoK8sApiCoreV1Volume", { name: "value", emptyDir: node("IoK8sApiCoreV1EmptyDirVolumeSource", { medium: "value", sizeLimit: "value" }) })),
};

export const POD_FIELDS: FieldShape = node("IoK8sApiCoreV1Pod", {
  apiVersion: "value",
  kind: "value",
  metadata: METADATA,
  spec: node("IoK8sApiCoreV1PodSpec", POD_SPEC_FIELDS),
});

const LABEL_SELECTOR = node("IoK8sApimachineryPkgApisMetaV1LabelSelector", { matchLabels: "map" });

export const NETWORK_POLICY_FIELDS: FieldShape = node("IoK8sApiNetworkingV1NetworkPolicy", {
  apiVersion: "value",
  kind: "value",
  metadata: METADATA,
  spec: node("IoK8sApiNetworkingV1NetworkPolicySpec", {
    podSelector: LABEL_SELECTOR,
    policyTypes: "value",
    ingress: "value",
    egress: each(
      node("IoK8sApiNetworkingV1NetworkPolicyEgressRule", {
        to: each(node("IoK8sApiNetworkingV1NetworkPolicyPeer", { podSelector: LABEL_SELECTOR, namespaceSelector: LABEL_SELECTOR })),
        ports: each(node("IoK8sApiNetworkingV1NetworkPolicyPort", { protocol: "value", port: "value" })),
      }),
    ),
  }),
});

/** The in-cluster egress proxy's Pod: a Run's Pod's fields, and a port for agents and a Secret mounted as a file. */
const PROXY_CONTAINER = node("IoK8sApiCoreV1Container", {
  ...CONTAINER_FIELDS,
  ports: each(node("IoK8sApiCoreV1ContainerPort", { name: "value", containerPort: "value", protocol: "value" })),
});

export const PROXY_POD_FIELDS: FieldShape = node("IoK8sApiCoreV1Pod", {
  apiVersion: "value",
  kind: "value",
  metadata: METADATA,
  spec: node("IoK8sApiCoreV1PodSpec", {
    ...POD_SPEC_FIELDS,
    // Its control secret is a Secret's file, which only fsGroup makes its uid's to read.
    securityContext: node("IoK8sApiCoreV1PodSecurityContext", {
      runAsUser: "value",
      runAsGroup: "value",
      runAsNonRoot: "value",
      fsGroup: "value",
      seccompProfile: SECCOMP,
    }),
    containers: each(PROXY_CONTAINER),
    volumes: each(
      node("IoK8sApiCoreV1Volume", {
        name: "value",
        emptyDir: node("IoK8sApiCoreV1EmptyDirVolumeSource", { medium: "value", sizeLimit: "value" }),
        secret: node("IoK8sApiCoreV1SecretVolumeSource", {
          secretName: "value",
          defaultMode: "value",
          items: each(node("IoK8sApiCoreV1KeyToPath", { key: "value", path: "value" })),
        }),
      }),
    ),
  }),
});

export const SERVICE_FIELDS: FieldShape = node("IoK8sApiCoreV1Service", {
  apiVersion: "value",
  kind: "value",
  metadata: METADATA,
  spec: node("IoK8sApiCoreV1ServiceSpec", {
    type: "value",
    selector: "map",
    ports: each(node("IoK8sApiCoreV1ServicePort", { name: "value", protocol: "value", port: "value", targetPort: "value" })),
  }),
});

export const PROXY_NETWORK_POLICY_FIELDS: FieldShape = node("IoK8sApiNetworkingV1NetworkPolicy", {
  apiVersion: "value",
  kind: "value",
  metadata: METADATA,
  spec: node("IoK8sApiNetworkingV1NetworkPolicySpec", {
    podSelector: LABEL_SELECTOR,
    policyTypes: "value",
    ingress: each(
      node("IoK8sApiNetworkingV1NetworkPolicyIngressRule", {
        from: each(
          node("IoK8sApiNetworkingV1NetworkPolicyPeer", {
            podSelector: node("IoK8sApimachineryPkgApisMetaV1LabelSelector", {
              matchExpressions: each(node("IoK8sApimachineryPkgApisMetaV1LabelSelectorRequirement", { key: "value", operator: "value", values: "value" })),
            }),
          }),
        ),
        ports: each(node("IoK8sApiNetworkingV1NetworkPolicyPort", { protocol: "value", port: "value" })),
      }),
    ),
  }),
});

/** Every path in `value` that `shape` does not allow, as "spec.containers.0.securityContext.privilegedd". */
export function unknownFields(value: unknown, shape: FieldShape, path = ""): string[] {
  const here = (key: string | number) => (path === "" ? String(key) : `${path}.${key}`);
  if (shape === "value") {
    const scalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);
    return scalar(value) || (Array.isArray(value) && value.every(scalar)) ? [] : [path];
  }
  if (shape === "map") {
    const isMap = typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === "string");
    return isMap ? [] : [path];
  }
  if ("each" in shape) {
    return Array.isArray(value) ? value.flatMap((item, index) => unknownFields(item, shape.each, here(index))) : [path];
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [path];
  return Object.entries(value).flatMap(([key, inner]) => {
    const field = shape.fields[key];
    return field === undefined ? [here(key)] : unknownFields(inner, field, here(key));
  });
}
