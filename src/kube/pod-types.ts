// The public shape of a Run's Pod, NetworkPolicy and Secret: exactly the fields known-fields.ts
// allows, as agentcage's own types, so no caller's compiler loads Kubernetes' models (whose .d.ts
// files do not compile under exactOptionalPropertyTypes). The renderers build Kubernetes' own types
// and return them as these, so a field here that disagrees with Kubernetes fails to compile.

export type KubeMetadata = { readonly name?: string; readonly namespace?: string; readonly labels?: Readonly<Record<string, string>> };
export type SeccompProfile = { readonly type: "Localhost" | "RuntimeDefault" | "Unconfined" };
export type LabelSelector = { readonly matchLabels?: Readonly<Record<string, string>> };

export type RunContainer = {
  readonly name: string;
  readonly image?: string;
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly workingDir?: string;
  readonly env?: ReadonlyArray<{
    readonly name: string;
    readonly value?: string;
    readonly valueFrom?: { readonly secretKeyRef?: { readonly name?: string; readonly key: string; readonly optional?: boolean } };
  }>;
  readonly stdin?: boolean;
  readonly stdinOnce?: boolean;
  readonly tty?: boolean;
  readonly securityContext?: {
    readonly runAsUser?: number;
    readonly runAsGroup?: number;
    readonly runAsNonRoot?: boolean;
    readonly privileged?: boolean;
    readonly allowPrivilegeEscalation?: boolean;
    readonly readOnlyRootFilesystem?: boolean;
    readonly capabilities?: { readonly drop?: readonly string[] };
    readonly seccompProfile?: SeccompProfile;
  };
  readonly resources?: { readonly limits?: Readonly<Record<string, string | number>>; readonly requests?: Readonly<Record<string, string | number>> };
  readonly volumeMounts?: ReadonlyArray<{ readonly name: string; readonly mountPath: string; readonly readOnly?: boolean }>;
};

export type RunPod = {
  readonly apiVersion: "v1";
  readonly kind: "Pod";
  readonly metadata?: KubeMetadata;
  readonly spec?: {
    readonly restartPolicy?: "Always" | "Never" | "OnFailure";
    readonly automountServiceAccountToken?: boolean;
    readonly enableServiceLinks?: boolean;
    readonly hostNetwork?: boolean;
    readonly hostPID?: boolean;
    readonly hostIPC?: boolean;
    readonly shareProcessNamespace?: boolean;
    readonly activeDeadlineSeconds?: number;
    readonly terminationGracePeriodSeconds?: number;
    readonly runtimeClassName?: string;
    readonly hostname?: string;
    readonly hostAliases?: ReadonlyArray<{ readonly ip: string; readonly hostnames?: readonly string[] }>;
    readonly dnsPolicy?: string;
    readonly dnsConfig?: { readonly nameservers?: readonly string[] };
    readonly securityContext?: {
      readonly runAsUser?: number;
      readonly runAsGroup?: number;
      readonly runAsNonRoot?: boolean;
      readonly seccompProfile?: SeccompProfile;
    };
    readonly containers: readonly RunContainer[];
    /** Only `inputs`, when the Run's inputs go in through the Pod. */
    readonly initContainers?: readonly RunContainer[];
    readonly volumes?: ReadonlyArray<{ readonly name: string; readonly emptyDir?: { readonly medium?: string; readonly sizeLimit?: string | number } }>;
  };
};

export type RunNetworkPolicy = {
  readonly apiVersion: "networking.k8s.io/v1";
  readonly kind: "NetworkPolicy";
  readonly metadata?: KubeMetadata;
  readonly spec?: {
    readonly podSelector: LabelSelector;
    readonly policyTypes?: readonly string[];
    readonly ingress?: readonly object[];
    readonly egress?: ReadonlyArray<{
      readonly to?: ReadonlyArray<{ readonly podSelector?: LabelSelector; readonly namespaceSelector?: LabelSelector }>;
      readonly ports?: ReadonlyArray<{ readonly protocol?: "SCTP" | "TCP" | "UDP"; readonly port?: string | number }>;
    }>;
  };
};

export type RunSecret = {
  readonly apiVersion: "v1";
  readonly kind: "Secret";
  readonly metadata?: KubeMetadata;
  readonly type?: string;
  readonly immutable?: boolean;
  readonly stringData?: Readonly<Record<string, string>>;
};

/** The in-cluster egress proxy's Pod: a Run's Pod's fields, and a port for agents and its control Secret as a file. */
export type ProxyPod = Omit<RunPod, "spec"> & {
  readonly spec?: Omit<NonNullable<RunPod["spec"]>, "containers" | "volumes" | "securityContext"> & {
    readonly securityContext?: NonNullable<NonNullable<RunPod["spec"]>["securityContext"]> & { readonly fsGroup?: number };
    readonly containers: ReadonlyArray<
      RunContainer & { readonly ports?: ReadonlyArray<{ readonly name?: string; readonly containerPort: number; readonly protocol?: "SCTP" | "TCP" | "UDP" }> }
    >;
    readonly volumes?: ReadonlyArray<{
      readonly name: string;
      readonly emptyDir?: { readonly medium?: string; readonly sizeLimit?: string | number };
      readonly secret?: {
        readonly secretName?: string;
        readonly defaultMode?: number;
        readonly items?: ReadonlyArray<{ readonly key: string; readonly path: string }>;
      };
    }>;
  };
};

/** The Service agents reach the in-cluster egress proxy by: a cluster address of its own, its one port. */
export type ProxyService = {
  readonly apiVersion: "v1";
  readonly kind: "Service";
  readonly metadata?: KubeMetadata;
  readonly spec?: {
    readonly type?: "ClusterIP" | "ExternalName" | "LoadBalancer" | "NodePort";
    readonly selector?: Readonly<Record<string, string>>;
    readonly ports?: ReadonlyArray<{
      readonly name?: string;
      readonly protocol?: "SCTP" | "TCP" | "UDP";
      readonly port: number;
      readonly targetPort?: string | number;
    }>;
  };
};

/** The proxy's NetworkPolicy: ingress from Runs' Pods (any Pod with a Run label), on the agents' port only. */
export type ProxyNetworkPolicy = {
  readonly apiVersion: "networking.k8s.io/v1";
  readonly kind: "NetworkPolicy";
  readonly metadata?: KubeMetadata;
  readonly spec?: {
    readonly podSelector: LabelSelector;
    readonly policyTypes?: readonly string[];
    readonly ingress?: ReadonlyArray<{
      readonly from?: ReadonlyArray<{
        readonly podSelector?: {
          readonly matchExpressions?: ReadonlyArray<{ readonly key: string; readonly operator: string; readonly values?: readonly string[] }>;
        };
      }>;
      readonly ports?: ReadonlyArray<{ readonly protocol?: "SCTP" | "TCP" | "UDP"; readonly port?: string | number }>;
    }>;
  };
};

/** The in-cluster egress proxy's objects, as renderEgressProxy makes them. */
export type EgressProxyManifest = { readonly pod: ProxyPod; readonly service: ProxyService; readonly networkPolicy: ProxyNetworkPolicy };
