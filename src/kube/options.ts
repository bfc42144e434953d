// What a Run's Pod needs beyond its composed spec: where it goes, how its reach is fenced, how big
// its writable out/ is. Invariant: nothing here can weaken a security field; it only places the Pod.

/** How far a Run's Pod may reach; ingress is always none. */
export type PodNetwork =
  | { readonly policy: "none" }
  | {
      /** `model` and `allowlist` both reach exactly one door: the egress proxy, which decides the rest. */
      readonly policy: "model" | "allowlist";
      readonly proxy: EgressProxyPeer;
    };

/** The egress proxy as a NetworkPolicy names it: its Pods' labels and the port it listens on. */
export type EgressProxyPeer = {
  readonly podLabels: Readonly<Record<string, string>>;
  /** The proxy's namespace by its labels; default: the Run's own namespace. */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  readonly port: number;
};

export type PodOptions = {
  /** Where the Pod and its NetworkPolicy are made; default "agentcage" (DEFAULT_NAMESPACE). */
  readonly namespace?: string;
  /** Bytes of the memory-backed out/ (or writable work/); the caller passes staging's writableBytes or its default. */
  readonly outBytes: number;
  readonly network: PodNetwork;
  /**
   * The cluster's RuntimeClass for a stronger sandbox (gVisor, Kata); default: the declaration's
   * containerRuntime, if any, else the cluster's default. A class the cluster lacks is refused by its API.
   */
  readonly runtimeClassName?: string;
  /** Default IfNotPresent: a cluster pulls what its nodes lack; "Never" for images loaded by hand. */
  readonly imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
};
