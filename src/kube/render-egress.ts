// The egress proxy inside a cluster, as objects: a bare Pod locked down as an agent's is, a Service
// agents reach it by, and a NetworkPolicy that admits only Runs' Pods, on the agents' port alone.
// Invariant: the control socket lives on a memory emptyDir of the Pod's own and is never a port; the
// control secret is a Secret's file, never an env value; nothing here holds a credential.
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import type { IPod, ISecret, IService } from "kubernetes-models/v1";
import { OWNER_LABEL, RUN_LABEL } from "../container/index.js";
import { KubernetesError } from "./kube-error.js";
import { EGRESS_CONTAINER_NAME, EGRESS_INSTANCE_LABEL, EGRESS_NAME_LABEL, EGRESS_NAME_VALUE } from "./limits.js";
import { checkedLabels, checkedName, checkedPort, isDnsLabel } from "./names.js";
import type { EgressProxyPeer } from "./options.js";
import { podUser } from "./pod-fields.js";
import type { EgressProxyManifest, RunSecret } from "./pod-types.js";
import { lockedDown, podNamespace } from "./render-pod.js";
import { validatedEgressProxy } from "./validate.js";

export type EgressProxyPodOptions = {
  /** The proxy's name: its Pod's, its Service's, its NetworkPolicy's; a DNS label. */
  readonly name: string;
  /** Default "agentcage" (DEFAULT_NAMESPACE), the Runs' namespace. */
  readonly namespace?: string;
  readonly image: string;
  /** The proxy's program in the image. */
  readonly command: readonly string[];
  /** Its configuration: names and values anyone may read (the upstreams, the port, where the control files are). */
  readonly env: Readonly<Record<string, string>>;
  /** "uid:gid", non-root. */
  readonly user: string;
  /** The port agents reach it on. */
  readonly port: number;
  /** Where its control socket is made: a memory emptyDir of its own. */
  readonly controlDir: string;
  /** Where the control Secret's one key is mounted as a file (mode 0440, its group fsGroup). */
  readonly secretDir: string;
  /** Ownership labels (session, host, pid), so a sweep by label finds it. */
  readonly labels: Readonly<Record<string, string>>;
  readonly memoryBytes: number;
  /** Bytes of its /tmp. */
  readonly tmpBytes: number;
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
};

/** The Secret that holds a proxy's control secret, by the proxy's name. */
export function controlSecretName(proxy: string): string {
  return `${proxy}-control`;
}

/** The key of the control Secret, which is the file the proxy reads in secretDir. */
export const CONTROL_SECRET_KEY = "control-secret";

/** The labels a Run's NetworkPolicy names this proxy by, and the port: what a Run's Pod may reach. */
export function egressPeer(options: Pick<EgressProxyPodOptions, "name" | "port">): EgressProxyPeer {
  return { podLabels: { [EGRESS_NAME_LABEL]: EGRESS_NAME_VALUE, [EGRESS_INSTANCE_LABEL]: options.name }, port: options.port };
}

/** The proxy's objects, each held to Kubernetes' schema and the exact field list; throws KubernetesError naming the option. */
export function renderEgressProxy(options: EgressProxyPodOptions): EgressProxyManifest {
  return validatedEgressProxy(egressObjects(options));
}

/** The objects as a `v1` List in JSON, which kubectl reads as it reads YAML (no Secret: its value is never printed). */
export function egressProxyJson(manifest: EgressProxyManifest): string {
  return `${JSON.stringify({ apiVersion: "v1", kind: "List", items: [manifest.networkPolicy, manifest.service, manifest.pod] }, null, 2)}\n`;
}

function egressObjects(options: EgressProxyPodOptions): EgressProxyManifest {
  if (!isDnsLabel(options.name)) {
    throw new KubernetesError(`the egress proxy's name ${JSON.stringify(options.name)} is not a DNS label; write lower-case letters, digits and "-"`);
  }
  const namespace = podNamespace(options);
  const { uid, gid } = podUser(options.user);
  const selector = egressPeer(options).podLabels;
  const labels = checkedLabels({ ...options.labels, ...selector, [OWNER_LABEL]: EGRESS_NAME_VALUE });
  const resources = { memory: String(options.memoryBytes) };
  const pod: IPod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: checkedName("the egress proxy's name", options.name), namespace, labels },
    spec: {
      // Not restarted in place: a restarted proxy knows no Run, so its owner starts a new one (as on Docker).
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: false,
      terminationGracePeriodSeconds: 5,
      // fsGroup: a Secret's files belong to root otherwise, and the proxy (uid 10002) could not read its control secret.
      securityContext: { runAsUser: uid, runAsGroup: gid, runAsNonRoot: true, fsGroup: gid, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        {
          name: EGRESS_CONTAINER_NAME,
          image: options.image,
          imagePullPolicy: options.imagePullPolicy ?? "IfNotPresent",
          command: [...options.command],
          env: Object.entries(options.env).map(([name, value]) => ({ name, value })),
          ports: [{ name: "agents", containerPort: checkedPort("the egress proxy's port", options.port), protocol: "TCP" }],
          stdin: false,
          tty: false,
          securityContext: lockedDown(uid, gid),
          resources: { limits: resources, requests: resources },
          volumeMounts: [
            { name: "control", mountPath: options.controlDir, readOnly: false },
            { name: "control-secret", mountPath: options.secretDir, readOnly: true },
            { name: "tmp", mountPath: "/tmp", readOnly: false },
          ],
        },
      ],
      volumes: [
        { name: "control", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
        {
          name: "control-secret",
          secret: { secretName: controlSecretName(options.name), defaultMode: 0o440, items: [{ key: CONTROL_SECRET_KEY, path: CONTROL_SECRET_KEY }] },
        },
        { name: "tmp", emptyDir: { medium: "Memory", sizeLimit: String(options.tmpBytes) } },
      ],
    },
  };
  const service: IService = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: options.name, namespace, labels },
    spec: { type: "ClusterIP", selector, ports: [{ name: "agents", protocol: "TCP", port: options.port, targetPort: options.port }] },
  };
  const networkPolicy: INetworkPolicy = {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: options.name, namespace, labels },
    spec: {
      podSelector: { matchLabels: selector },
      // Ingress only: the proxy's way out is the providers', which the cluster's own egress rules govern.
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [{ podSelector: { matchExpressions: [{ key: RUN_LABEL, operator: "Exists" }] } }],
          ports: [{ protocol: "TCP", port: options.port }],
        },
      ],
    },
  };
  return { pod, service, networkPolicy };
}

/** The Secret holding the control secret; made with the proxy, removed with it, never printed. */
export function controlSecret(options: Pick<EgressProxyPodOptions, "name" | "namespace" | "labels">, secret: string): RunSecret {
  const object: ISecret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: checkedName("the control Secret's name", controlSecretName(options.name)),
      namespace: podNamespace(options),
      labels: checkedLabels({ ...options.labels }),
    },
    type: "Opaque",
    immutable: true,
    stringData: { [CONTROL_SECRET_KEY]: secret },
  };
  return object;
}
