// The Kubernetes API as a Run uses it, wrapped once behind the few operations it needs (create,
// watch one Pod, attach, exec, delete, list by label, read a namespace), so everything above is testable without a
// cluster and readable without client-node's types. Invariant: this is the one file that imports
// @kubernetes/client-node; creates ask for strict field validation, so a field the server would
// drop is refused instead. Not yet run against a live cluster, only a recorded exchange.
import { PassThrough, type Readable, type Writable } from "node:stream";
import type { V1NetworkPolicy, V1Pod, V1Secret, V1Service, V1Status } from "@kubernetes/client-node";
import type { PodObject } from "./pod-status.js";
import type { KubeMetadata } from "./pod-types.js";

export type AttachSession = {
  /** The subprotocol the server chose; only v5.channel.k8s.io can close stdin and keep reading stdout. */
  readonly protocol: string;
  /** Writes the prompt (or an archive, as it is read) to the container's stdin and closes it (v5's close frame). */
  readonly send: (stdin: Uint8Array | Readable) => void;
  /** Resolves when the server closes the attach connection (the agent's stdout ended). */
  readonly closed: Promise<void>;
  readonly close: () => void;
};

/** How a command run over exec ended, as the server's Status on channel 3 says. */
export type ExecStatus = { readonly ok: true } | { readonly ok: false; readonly message: string };

export type ExecSession = {
  readonly protocol: string;
  /** The command's end (channel 3's Status); a connection that closed without one is a failure. */
  readonly status: Promise<ExecStatus>;
  readonly close: () => void;
};

export type KubeApi = {
  /** The API server's address, as the kubeconfig names it: for a message that says which cluster did not answer. */
  readonly server: string;
  /** The namespace object (its labels), to check before Pods go there (cluster-check.ts). */
  readonly readNamespace: (name: string) => Promise<{ readonly metadata?: KubeMetadata }>;
  readonly createSecret: (namespace: string, secret: object) => Promise<void>;
  readonly createNetworkPolicy: (namespace: string, policy: object) => Promise<void>;
  readonly createPod: (namespace: string, pod: object) => Promise<void>;
  /** Creates a Service and answers the cluster address it was given (spec.clusterIP). */
  readonly createService: (namespace: string, service: object) => Promise<{ readonly clusterIP: string }>;
  /** Calls `onPod` with each state of one Pod the API announces (`deleted` on its last, when it was deleted); stop() ends the watch. */
  readonly watchPod: (
    namespace: string,
    name: string,
    onPod: (pod: PodObject, deleted?: boolean) => void,
    onEnd: (error?: unknown) => void,
  ) => Promise<{ readonly stop: () => void }>;
  readonly attach: (namespace: string, name: string, container: string, stdout: Writable, stderr: Writable) => Promise<AttachSession>;
  /** Runs `command` in a running container, its stdout and stderr written to these (ended with it), `stdin` read to it when given; no TTY. */
  readonly exec: (
    namespace: string,
    name: string,
    container: string,
    command: readonly string[],
    stdout: Writable,
    stderr: Writable,
    stdin?: Readable,
  ) => Promise<ExecSession>;
  /** Deletes at once (no grace: the Run is over); an object already gone is no error. */
  readonly remove: (kind: "Pod" | "NetworkPolicy" | "Secret" | "Service", namespace: string, name: string) => Promise<void>;
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
  const { Attach, CoreV1Api, Exec, KubeConfig, NetworkingV1Api, Watch } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  if (options.kubeconfig === undefined) kc.loadFromDefault();
  else kc.loadFromString(options.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  return {
    server: kc.getCurrentCluster()?.server ?? "(the kubeconfig names no server)",
    readNamespace: async (name) => (await core.readNamespace({ name })) as { metadata?: KubeMetadata },
    createSecret: async (namespace, secret) => void (await core.createNamespacedSecret({ namespace, body: secret as V1Secret, ...STRICT })),
    createNetworkPolicy: async (namespace, policy) =>
      void (await networking.createNamespacedNetworkPolicy({ namespace, body: policy as V1NetworkPolicy, ...STRICT })),
    createPod: async (namespace, pod) => void (await core.createNamespacedPod({ namespace, body: pod as V1Pod, ...STRICT })),
    createService: async (namespace, service) => {
      const made = await core.createNamespacedService({ namespace, body: service as V1Service, ...STRICT });
      return { clusterIP: made.spec?.clusterIP ?? "" };
    },
    watchPod: async (namespace, name, onPod, onEnd) => {
      const controller = await new Watch(kc).watch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        { fieldSelector: `metadata.name=${name}` },
        (type: string, object: PodObject) => {
          if (type === "ADDED" || type === "MODIFIED") onPod(object);
          else if (type === "DELETED") onPod(object, true);
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
        send: (given) => {
          if (given instanceof Uint8Array) stdin.end(Buffer.from(given));
          else {
            // A source that fails must not look finished: the connection is dropped, never closed in order.
            given.once("error", () => socket.close());
            given.pipe(stdin);
          }
        },
        closed,
        close: () => socket.close(),
      };
    },
    exec: async (namespace, name, container, command, stdout, stderr, stdin) => {
      let said: ((status: ExecStatus) => void) | undefined;
      const status = new Promise<ExecStatus>((resolve) => (said = resolve));
      const socket = await new Exec(kc).exec(namespace, name, container, [...command], stdout, stderr, stdin ?? null, false, (answer: V1Status) =>
        said?.(execStatus(answer)),
      );
      // A connection that ends without a Status said nothing of the command's end: not a success.
      socket.once("close", () => said?.({ ok: false, message: "the exec connection closed before the server said how the command ended" }));
      return { protocol: socket.protocol, status, close: () => socket.close() };
    },
    remove: async (kind, namespace, name) => {
      const options = { name, namespace, gracePeriodSeconds: 0 };
      try {
        if (kind === "Pod") await core.deleteNamespacedPod(options);
        else if (kind === "Secret") await core.deleteNamespacedSecret(options);
        else if (kind === "Service") await core.deleteNamespacedService(options);
        else await networking.deleteNamespacedNetworkPolicy(options);
      } catch (error) {
        if ((error as { code?: number }).code !== 404) throw error;
      }
    },
    listPods: async (namespace, labelSelector) => (await core.listNamespacedPod({ namespace, labelSelector })).items as PodObject[],
  };
}

/** Success, or the Status' message (kubelet: "command terminated with non-zero exit code: ..."), its exit code named. */
function execStatus(answer: V1Status): ExecStatus {
  if (answer.status === "Success") return { ok: true };
  const code = answer.details?.causes?.find((cause) => cause.reason === "ExitCode")?.message;
  const message = answer.message ?? answer.reason ?? "the command failed";
  return { ok: false, message: code === undefined ? message : `${message} (exit code ${code})` };
}
