// The Kubernetes API as a Run uses it, wrapped once behind the few operations it needs (create,
// watch one Pod, attach, delete, list by label), so everything above is testable without a
// cluster and readable without client-node's types. Invariant: this is the one file that imports
// @kubernetes/client-node; creates ask for strict field validation, so a field the server would
// drop is refused instead. Not yet run against a live cluster, only a recorded exchange.
import { PassThrough, type Readable, type Writable } from "node:stream";
import type { V1NetworkPolicy, V1Pod, V1Secret } from "@kubernetes/client-node";
import type { PodObject } from "./pod-status.js";

export type AttachSession = {
  /** The subprotocol the server chose; only v5.channel.k8s.io can close stdin and keep reading stdout. */
  readonly protocol: string;
  /** Writes the prompt to the agent's stdin and closes it (v5's close frame). */
  readonly send: (stdin: Uint8Array) => void;
  /** Resolves when the server closes the attach connection (the agent's stdout ended). */
  readonly closed: Promise<void>;
  readonly close: () => void;
};

export type KubeApi = {
  readonly createSecret: (namespace: string, secret: object) => Promise<void>;
  readonly createNetworkPolicy: (namespace: string, policy: object) => Promise<void>;
  readonly createPod: (namespace: string, pod: object) => Promise<void>;
  /** Calls `onPod` with each state of one Pod the API announces; stop() ends the watch. */
  readonly watchPod: (
    namespace: string,
    name: string,
    onPod: (pod: PodObject) => void,
    onEnd: (error?: unknown) => void,
  ) => Promise<{ readonly stop: () => void }>;
  readonly attach: (namespace: string, name: string, container: string, stdout: Writable, stderr: Writable) => Promise<AttachSession>;
  /** Deletes at once (no grace: the Run is over); an object already gone is no error. */
  readonly remove: (kind: "Pod" | "NetworkPolicy" | "Secret", namespace: string, name: string) => Promise<void>;
  readonly listPods: (namespace: string, labelSelector: string) => Promise<PodObject[]>;
};

const STRICT = { fieldValidation: "Strict" } as const;

export type KubeApiOptions = {
  /** A kubeconfig's text (YAML or JSON); default: KUBECONFIG, ~/.kube/config, or the in-cluster account. */
  readonly kubeconfig?: string;
};

/**
 * A KubeApi over a kubeconfig. client-node is loaded here, when first asked for (it takes about a
 * second to load), and none of its types reach a caller.
 */
export async function createKubeApi(options: KubeApiOptions = {}): Promise<KubeApi> {
  const { Attach, CoreV1Api, KubeConfig, NetworkingV1Api, Watch } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (options.kubeconfig === undefined) kc.loadFromDefault();
  else kc.loadFromString(options.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  return {
    createSecret: async (namespace, secret) => void (await core.createNamespacedSecret({ namespace, body: secret as V1Secret, ...STRICT })),
    createNetworkPolicy: async (namespace, policy) =>
      void (await networking.createNamespacedNetworkPolicy({ namespace, body: policy as V1NetworkPolicy, ...STRICT })),
    createPod: async (namespace, pod) => void (await core.createNamespacedPod({ namespace, body: pod as V1Pod, ...STRICT })),
    watchPod: async (namespace, name, onPod, onEnd) => {
      const controller = await new Watch(kc).watch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        { fieldSelector: `metadata.name=${name}` },
        (type: string, object: PodObject) => {
          if (type === "ADDED" || type === "MODIFIED") onPod(object);
        },
        (error: unknown) => onEnd(error ?? undefined),
      );
      return { stop: () => controller.abort() };
    },
    attach: async (namespace, name, container, stdout, stderr) => {
      const stdin = new PassThrough();
      const socket = await new Attach(kc).attach(namespace, name, container, stdout, stderr, stdin as Readable, false);
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      return {
        protocol: socket.protocol,
        send: (bytes) => stdin.end(Buffer.from(bytes)),
        closed,
        close: () => socket.close(),
      };
    },
    remove: async (kind, namespace, name) => {
      const options = { name, namespace, gracePeriodSeconds: 0 };
      try {
        if (kind === "Pod") await core.deleteNamespacedPod(options);
        else if (kind === "Secret") await core.deleteNamespacedSecret(options);
        else await networking.deleteNamespacedNetworkPolicy(options);
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
      }
    },
    listPods: async (namespace, labelSelector) => (await core.listNamespacedPod({ namespace, labelSelector })).items as PodObject[],
  };
}
