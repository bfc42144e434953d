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
  /** The Run's files through the Pod (its inputs in, its out/ or writable work/ back); default: neither. */
  readonly files?: PodFiles;
};

/**
 * How a Run's files reach its Pod and come back, where the cluster's nodes share no disk with this
 * process: an init container `inputs` unpacks the archive the Run sends on its stdin (tar) into
 * work/, so the agent starts only once its inputs are there; a `holder` container (sleep) keeps the
 * written place mounted past the agent's exit, read back as a tar over exec. Both run the agent's
 * image under the same security fields; the image needs `tar` and `sleep`.
 */
export type PodFiles = {
  /** Whether work/ is filled by the `inputs` init container before the agent starts. */
  readonly inputs: boolean;
  /** The place the holder keeps for reading back: out/, or a writable work/; default: no holder. */
  readonly keep?: "out" | "work";
  /** How long the holder lives at most (its `sleep`): past the Run's deadline and its copy-back. */
  readonly holderSeconds: number;
  /** Bytes of work/'s emptyDir: what was staged, plus with a writable work/ what the agent may add; default outBytes. */
  readonly workBytes?: number;
};
