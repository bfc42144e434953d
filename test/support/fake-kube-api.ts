// A local stand-in for the Kubernetes API server that replays a recorded exchange (test/fixtures/
// kube): creates answered 201 (strictly: an unknown field, a wrong kind or namespace, a name taken,
// a path the API has not are refused as the API server refuses them), one Pod's watch as
// newline-delimited WatchEvents, attach and exec as websockets speaking the channel subprotocol
// (stdin 0, stdout 1, stderr 2, error 3 with a Status, the client's close 255), deletes, a
// label-selected list, and a namespace read (its Pod Security label). The inputs container's tar is unpacked here, and the holder's `tar -c` packs
// what the exchange says the agent left. An egress proxy's Pod (its name label) runs at once, a
// Service is given a cluster address, and an exec of the proxy's control bridge is joined to a real
// control socket the test names. It records every request so a test can check what the
// client sent, in order, and says which objects are left. Loopback only.
import { readFileSync } from "node:fs";
import { connect as connectSocket } from "node:net";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import * as models from "@kubernetes/client-node";
import tar, { type Header } from "tar-stream";
import { WebSocketServer, type WebSocket } from "ws";

type WatchLine = { readonly type: string; readonly object: Record<string, unknown> };
/** One entry of the place the holder keeps, as the agent left it; `size` without content: that many zero bytes. */
export type HolderEntry = {
  readonly name: string;
  readonly type?: "file" | "directory" | "symlink";
  readonly content?: string;
  readonly size?: number;
  readonly linkname?: string;
};
export type KubeExchange = {
  readonly pod: string;
  readonly namespace: string;
  readonly watchBeforeAttach: readonly WatchLine[];
  /** Once the inputs container's attach has closed (its tar took the archive and exited 0). */
  readonly watchAfterInputs?: readonly WatchLine[];
  readonly attach?: { readonly protocol: string; readonly frames: ReadonlyArray<readonly [number, string]> };
  readonly watchAfterAttach?: readonly WatchLine[];
  /** What the holder's place holds once the agent has exited: its `tar -c` over exec packs it, the place's directory first. */
  readonly holder?: { readonly entries: readonly HolderEntry[] };
};
export type RecordedRequest = { readonly method: string; readonly path: string; readonly query: URLSearchParams; readonly body: unknown };

export function exchange(name: string): KubeExchange {
  return JSON.parse(readFileSync(new URL(`../fixtures/kube/${name}.json`, import.meta.url), "utf8")) as KubeExchange;
}

export type FakeKubeApi = {
  /** A kubeconfig (JSON, which is YAML) that points at this server. */
  readonly kubeconfig: string;
  readonly requests: RecordedRequest[];
  /** What the client wrote to the agent's stdin, and whether it closed it (v5's close frame). */
  readonly stdin: () => { readonly bytes: Buffer; readonly closed: boolean };
  /** The files the inputs container unpacked into work/, by name (directories end in "/"). */
  readonly inputs: () => ReadonlyMap<string, string>;
  /** The objects that exist now, as "pods/name", "networkpolicies/name", "secrets/name". */
  readonly objects: () => string[];
  readonly close: () => Promise<void>;
};

export type FakeOptions = {
  /** Answers a create of this kind with this HTTP status instead of 201. */
  readonly refuse?: { readonly kind: "pods" | "networkpolicies" | "secrets" | "services"; readonly status: number };
  /** Pods a label-selected list answers before the Pods that exist and match (as if made by others); default: none. */
  readonly listed?: readonly object[];
  /** Between two watch lines, as an API server's events come apart. */
  readonly lineGapMs?: number;
  /** Ends every open watch after this many lines, as an API server ends a watch at its timeout. */
  readonly endWatchesAfter?: number;
  /** What the holder's place holds instead of the exchange's. */
  readonly holderEntries?: readonly HolderEntry[];
  /** The exec's Status instead of Success (the holder's tar failing). */
  readonly execStatus?: Record<string, unknown>;
  /** Where an exec of the egress proxy's bridge in its Pod is joined to (a control socket of the test's), and the line the bridge says once it is. */
  readonly proxyBridge?: { readonly socketPath: string; readonly connectedLine: string };
  /** An egress proxy's Pod waits (ContainerCreating) instead of running at once. */
  readonly proxyWaits?: boolean;
  /** An egress proxy's Pod is deleted right after its create was answered (by someone else), before anyone watches it. */
  readonly proxyDeletedAtCreate?: boolean;
  /** The namespaces there are, by name, with their labels; default: the exchange's, enforcing the restricted Pod Security standard. */
  readonly namespaces?: Readonly<Record<string, Readonly<Record<string, string>>>>;
};

const COLLECTIONS: Readonly<Record<string, { readonly prefix: string; readonly kind: string; readonly apiVersion: string; readonly model: string }>> = {
  pods: { prefix: "/api/v1", kind: "Pod", apiVersion: "v1", model: "V1Pod" },
  secrets: { prefix: "/api/v1", kind: "Secret", apiVersion: "v1", model: "V1Secret" },
  networkpolicies: { prefix: "/apis/networking.k8s.io/v1", kind: "NetworkPolicy", apiVersion: "networking.k8s.io/v1", model: "V1NetworkPolicy" },
  services: { prefix: "/api/v1", kind: "Service", apiVersion: "v1", model: "V1Service" },
};
/** The cluster address the fake gives a Service. */
export const FAKE_CLUSTER_IP = "10.96.0.20";
/** The label an egress proxy's Pod carries (src/kube/limits.ts), which makes the fake run it at once. */
const PROXY_LABEL = ["app.kubernetes.io/name", "agentcage-egress"] as const;
const NAMESPACE_ROUTE = /^\/api\/v1\/namespaces\/([a-z0-9-]+)$/;
const ROUTE =
  /^(\/api\/v1|\/apis\/networking\.k8s\.io\/v1)\/namespaces\/([a-z0-9-]+)\/(pods|secrets|networkpolicies|services)(?:\/([a-z0-9.-]+)(?:\/(attach|exec))?)?$/;
const CHANNEL_PROTOCOLS = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

type Route = { readonly namespace: string; readonly collection: string; readonly name?: string; readonly sub?: string };

function routeOf(path: string): Route | undefined {
  const match = ROUTE.exec(path);
  if (match === null) return undefined;
  const [, prefix, namespace, collection, name, sub] = match;
  if (COLLECTIONS[collection as string]?.prefix !== prefix) return undefined;
  return { namespace: namespace as string, collection: collection as string, ...(name === undefined ? {} : { name }), ...(sub === undefined ? {} : { sub }) };
}

/** Fields of `value` that the API's schema (client-node's generated models) does not declare, as a strict decoder names them. */
function undeclared(value: unknown, type: string, path: string): string[] {
  const list = /^Array<(.+)>$/.exec(type);
  if (list !== null) return Array.isArray(value) ? value.flatMap((item, i) => undeclared(item, list[1] as string, `${path}[${i}]`)) : [];
  const model = (models as unknown as Record<string, { getAttributeTypeMap?: () => Array<{ baseName: string; type: string }> }>)[type];
  if (model?.getAttributeTypeMap === undefined || typeof value !== "object" || value === null) return [];
  const fields = model.getAttributeTypeMap();
  return Object.entries(value).flatMap(([key, inner]) => {
    const field = fields.find((f) => f.baseName === key);
    const here = path === "" ? key : `${path}.${key}`;
    return field === undefined ? [here] : undeclared(inner, field.type, here);
  });
}

function status(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

/** Parses a tar into names and contents (directories end in "/"); rejects a malformed one as tar -x would fail on it. */
async function untar(bytes: Buffer): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const extract = tar.extract();
  const done = (async () => {
    for await (const entry of extract as AsyncIterable<AsyncIterable<Buffer> & { header: Header }>) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk);
      files.set(entry.header.type === "directory" ? entry.header.name.replace(/\/?$/, "/") : entry.header.name, Buffer.concat(chunks).toString("utf8"));
    }
  })();
  Readable.from([bytes]).pipe(extract as unknown as NodeJS.WritableStream);
  await done;
  return files;
}

/** The holder's `tar -c -f - -C / <place>`: the place's directory first, then what it holds. */
async function packPlace(place: string, entries: readonly HolderEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  const add = (header: Partial<Header> & Pick<Header, "name">, body?: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (body === undefined) pack.entry(header, done);
      else pack.entry(header, body, done);
    });
  await add({ name: `${place}/`, type: "directory", mode: 0o755 });
  for (const entry of entries) {
    const name = `${place}/${entry.name}`;
    if (entry.type === "directory") await add({ name: `${name}/`, type: "directory", mode: 0o755 });
    else if (entry.type === "symlink") await add({ name, type: "symlink", linkname: entry.linkname ?? "", mode: 0o777 });
    else await add({ name, type: "file", mode: 0o644 }, entry.content === undefined ? Buffer.alloc(entry.size ?? 0) : Buffer.from(entry.content));
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

const PROXY_WAITING = { phase: "Pending", containerStatuses: [{ name: "egress", state: { waiting: { reason: "ContainerCreating" } } }] };
const PROXY_RUNNING = { phase: "Running", containerStatuses: [{ name: "egress", state: { running: { startedAt: "2026-12-03T10:00:00Z" } } }] };

/** How an egress proxy's Pod is named (src/gateway/kube-egress-gateway.ts; the test's own options name theirs so too). */
const PROXY_NAME_PREFIX = "agentcage-egress-";

function isProxy(object: Record<string, unknown>): boolean {
  const labels = (object["metadata"] as { labels?: Record<string, string> } | undefined)?.labels ?? {};
  return labels[PROXY_LABEL[0]] === PROXY_LABEL[1];
}

type PodSpecShape = {
  readonly containers?: ReadonlyArray<{ name?: string; command?: string[]; stdin?: boolean; volumeMounts?: Array<{ mountPath?: string }> }>;
  readonly initContainers?: ReadonlyArray<{ name?: string; stdin?: boolean }>;
};

export async function startFakeKubeApi(recorded: KubeExchange, options: FakeOptions = {}): Promise<FakeKubeApi> {
  const requests: RecordedRequest[] = [];
  const emitted: WatchLine[] = [];
  const watchers = new Set<ServerResponse>();
  /** Watches of an egress proxy's Pod, with the name each watches: apart, as the Run's Pod's lines are not theirs. */
  const proxyWatchers = new Map<ServerResponse, string>();
  const stdinChunks: Buffer[] = [];
  const objects = new Map<string, Record<string, unknown>>();
  let unpacked = new Map<string, string>();
  let stdinClosed = false;
  const emit = (line: WatchLine) => {
    emitted.push(line);
    for (const res of watchers) res.write(`${JSON.stringify(line)}\n`);
    if (emitted.length === options.endWatchesAfter) {
      for (const res of watchers) res.end();
      watchers.clear();
    }
  };
  const emitAll = async (lines: readonly WatchLine[]) => {
    for (const line of lines) {
      await new Promise((resolve) => setTimeout(resolve, options.lineGapMs ?? 10));
      emit(line);
    }
  };
  const answer = (res: ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const create = (res: ServerResponse, route: Route, query: URLSearchParams, body: Record<string, unknown> | undefined) => {
    const collection = COLLECTIONS[route.collection];
    if (collection === undefined || route.name !== undefined)
      return answer(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
    if (options.refuse?.kind === route.collection)
      return answer(res, options.refuse.status, status(options.refuse.status, "Forbidden", `${route.collection} is forbidden`));
    if (query.get("fieldValidation") !== "Strict")
      return answer(res, 400, status(400, "BadRequest", "this exchange expects every create to ask fieldValidation=Strict"));
    if (body?.["kind"] !== collection.kind || body["apiVersion"] !== collection.apiVersion) {
      return answer(res, 400, status(400, "BadRequest", `the object is not a ${collection.kind} of ${collection.apiVersion}`));
    }
    const metadata = (body["metadata"] ?? {}) as { name?: string; namespace?: string };
    if (metadata.namespace !== undefined && metadata.namespace !== route.namespace) {
      return answer(res, 400, status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"));
    }
    const unknown = undeclared(body, collection.model, "");
    if (unknown.length > 0) {
      return answer(
        res,
        400,
        status(
          400,
          "BadRequest",
          `${collection.kind} in version "v1" cannot be handled as a ${collection.kind}: strict decoding error: unknown field "${unknown[0]}"`,
        ),
      );
    }
    const key = `${route.collection}/${metadata.name}`;
    if (metadata.name === undefined || objects.has(key))
      return answer(res, 409, status(409, "AlreadyExists", `${route.collection} "${metadata.name}" already exists`));
    objects.set(key, body);
    const made = { ...body, metadata: { ...metadata, uid: "6f1c7f0e-3b8a-4d2e-9a57-2f0d6c1e4b90", resourceVersion: "81233" } };
    if (route.collection === "services") return answer(res, 201, { ...made, spec: { ...(body["spec"] as object), clusterIP: FAKE_CLUSTER_IP } });
    answer(res, 201, made);
    if (route.collection === "pods" && !isProxy(body)) void emitAll(recorded.watchBeforeAttach);
    if (route.collection === "pods" && isProxy(body) && options.proxyDeletedAtCreate === true) objects.delete(key);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? undefined : JSON.parse(text);
      requests.push({ method: req.method ?? "", path: url.pathname, query: url.searchParams, body });
      const namespaceName = NAMESPACE_ROUTE.exec(url.pathname)?.[1];
      if (namespaceName !== undefined && req.method === "GET") {
        const namespaces = options.namespaces ?? { [recorded.namespace]: { "pod-security.kubernetes.io/enforce": "restricted" } };
        const labels = namespaces[namespaceName];
        if (labels === undefined) return answer(res, 404, status(404, "NotFound", `namespaces "${namespaceName}" not found`));
        return answer(res, 200, { kind: "Namespace", apiVersion: "v1", metadata: { name: namespaceName, labels }, status: { phase: "Active" } });
      }
      const route = routeOf(url.pathname);
      if (route === undefined || route.sub !== undefined) return answer(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
      if (req.method === "POST") return create(res, route, url.searchParams, body);
      if (req.method === "GET" && route.name === undefined && url.searchParams.get("watch") === "true") {
        const asked = url.searchParams.get("fieldSelector")?.replace(/^metadata\.name=/, "") ?? "";
        const proxy = objects.get(`pods/${asked}`);
        if (route.collection === "pods" && ((proxy !== undefined && isProxy(proxy)) || asked.startsWith(PROXY_NAME_PREFIX))) {
          // An egress proxy's Pod: its container runs from the first line on. One not there (yet, or any
          // more) is watched all the same, as an API server does: no line until it is made or deleted.
          res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
          if (proxy === undefined) res.flushHeaders();
          else res.write(`${JSON.stringify({ type: "ADDED", object: { ...proxy, status: options.proxyWaits === true ? PROXY_WAITING : PROXY_RUNNING } })}\n`);
          proxyWatchers.set(res, asked);
          res.on("close", () => proxyWatchers.delete(res));
          return;
        }
        // The one Run's Pod made (whatever its Run's id), or the exchange's before it is made.
        const made = [...objects].find(([key, pod]) => key.startsWith("pods/") && !isProxy(pod))?.[0].slice("pods/".length) ?? recorded.pod;
        if (route.collection !== "pods" || url.searchParams.get("fieldSelector") !== `metadata.name=${made}`) {
          return answer(res, 400, status(400, "BadRequest", "this exchange watches one Pod by its name"));
        }
        res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
        watchers.add(res);
        res.on("close", () => watchers.delete(res));
        // A new watch without a resourceVersion starts with the object as it is now, as ADDED.
        const last = emitted.at(-1);
        if (last !== undefined) res.write(`${JSON.stringify({ type: "ADDED", object: last.object })}\n`);
        return;
      }
      if (req.method === "GET" && route.name === undefined && route.collection === "pods") {
        const selector = url.searchParams.get("labelSelector") ?? "";
        const matches = (pod: Record<string, unknown>) => {
          const labels = ((pod["metadata"] as { labels?: Record<string, string> } | undefined)?.labels ?? {}) as Record<string, string>;
          return selector.split(",").every((term) => term === "" || labels[term.split("=")[0] as string] === term.split("=")[1]);
        };
        const existing = [...objects].filter(([key]) => key.startsWith("pods/")).map(([, pod]) => pod);
        return answer(res, 200, {
          kind: "PodList",
          apiVersion: "v1",
          metadata: { resourceVersion: "81300" },
          items: [...(options.listed ?? []), ...existing.filter(matches)],
        });
      }
      if (req.method === "DELETE" && route.name !== undefined) {
        const key = `${route.collection}/${route.name}`;
        if (!objects.has(key) && options.listed === undefined)
          return answer(res, 404, status(404, "NotFound", `${route.collection} "${route.name}" not found`));
        const deleted = objects.get(key);
        objects.delete(key);
        // Its watchers are told, as an API server tells them: the object's last state, as DELETED.
        for (const [watch, name] of proxyWatchers) {
          if (deleted !== undefined && route.collection === "pods" && name === route.name) {
            watch.write(
              `${JSON.stringify({ type: "DELETED", object: { ...deleted, status: options.proxyWaits === true ? PROXY_WAITING : PROXY_RUNNING } })}\n`,
            );
          }
        }
        return answer(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
      }
      answer(res, 405, status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
    });
  });
  const sockets = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => {
      const wanted = recorded.attach?.protocol ?? CHANNEL_PROTOCOLS[0];
      return offered.has(wanted as string) ? (wanted as string) : false;
    },
  });
  const refuseUpgrade = (socket: NodeJS.WritableStream & { destroy: () => void }, code: number, message: string) => {
    const body = JSON.stringify(status(code, code === 404 ? "NotFound" : "BadRequest", message));
    socket.write(
      `HTTP/1.1 ${code} ${code === 404 ? "Not Found" : "Bad Request"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.destroy();
  };
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://fake");
    requests.push({ method: "GET", path: url.pathname, query: url.searchParams, body: undefined });
    const route = routeOf(url.pathname);
    const pod = objects.get(`pods/${route?.name}`);
    if (route?.collection !== "pods" || route.sub === undefined || pod === undefined)
      return refuseUpgrade(socket, 404, "the server could not find the requested resource");
    const spec = (pod["spec"] ?? {}) as PodSpecShape;
    const name = url.searchParams.get("container");
    const init = spec.initContainers?.find((c) => c.name === name);
    const regular = spec.containers?.find((c) => c.name === name);
    if (init === undefined && regular === undefined) return refuseUpgrade(socket, 400, `container ${name} is not valid for pod ${route.name}`);
    if (url.searchParams.get("tty") !== "false") return refuseUpgrade(socket, 400, "this exchange runs nothing with a TTY");
    if (route.sub === "attach") {
      if (url.searchParams.get("stdin") === "true" && (init ?? regular)?.stdin !== true)
        return refuseUpgrade(socket, 400, "stdin was asked of a container that has none");
      return sockets.handleUpgrade(req, socket, head, (ws) => (init !== undefined ? attachInputs(ws) : attachAgent(ws)));
    }
    const command = url.searchParams.getAll("command");
    if (isProxy(pod)) {
      if (options.proxyBridge === undefined || command.at(-1) === undefined || url.searchParams.get("stdin") !== "true")
        return refuseUpgrade(socket, 400, `this exchange records no exec of ${JSON.stringify(command)} in the egress proxy`);
      return sockets.handleUpgrade(req, socket, head, (ws) => bridge(ws, options.proxyBridge as NonNullable<FakeOptions["proxyBridge"]>));
    }
    // exec: only the holder still runs when its place is read, and only its tar of a place it mounts is recorded.
    const mounted = (regular?.volumeMounts ?? []).map((m) => m.mountPath?.slice(1));
    const asked = command.at(-1) ?? "";
    if (regular?.command?.[0] !== "sleep") return refuseUpgrade(socket, 400, `container ${name} is not running`);
    if (command.slice(0, -1).join(" ") !== "tar -c -f - -C /" || !mounted.includes(asked) || url.searchParams.get("stdin") === "true") {
      return refuseUpgrade(socket, 400, `this exchange records no exec of ${JSON.stringify(command)}`);
    }
    sockets.handleUpgrade(req, socket, head, (ws) => void execTar(ws, asked));
  });
  const attachAgent = (ws: WebSocket) => {
    const replay = () => {
      for (const [channel, text] of recorded.attach?.frames ?? []) ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(text)]));
      ws.close(1000);
    };
    ws.on("message", (data: Buffer) => {
      if (data[0] === 0) stdinChunks.push(data.subarray(1));
      // v5: channel 255 names the stream the client closed; stdin closed, the agent answers and ends.
      if (data[0] === 255 && data[1] === 0) {
        stdinClosed = true;
        replay();
      }
    });
    ws.on("close", () => void emitAll(recorded.watchAfterAttach ?? []));
  };
  const attachInputs = (ws: WebSocket) => {
    const archive: Buffer[] = [];
    ws.on("message", (data: Buffer) => {
      if (data[0] === 0) archive.push(data.subarray(1));
      if (data[0] === 255 && data[1] === 0) {
        // tar -x read its stdin to the end and exited: the container ends, and the attach with it.
        void untar(Buffer.concat(archive)).then(
          (files) => {
            unpacked = files;
            ws.close(1000);
            void emitAll(recorded.watchAfterInputs ?? []);
          },
          () => ws.close(1000),
        );
      }
    });
  };
  /** The bridge as it runs in the proxy's container: channel 0 to the control socket, the socket to channel 1. */
  const bridge = (ws: WebSocket, to: NonNullable<FakeOptions["proxyBridge"]>) => {
    const control = connectSocket(to.socketPath);
    const end = (ok: boolean) => {
      if (ws.readyState !== ws.OPEN) return;
      const said = ok ? { metadata: {}, status: "Success" } : { metadata: {}, status: "Failure", message: "the bridge exited 1" };
      ws.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(said))]));
      ws.close(1000);
    };
    control.once("connect", () => ws.send(Buffer.concat([Buffer.from([2]), Buffer.from(`${to.connectedLine}\n`)])));
    control.on("data", (chunk: Buffer) => ws.send(Buffer.concat([Buffer.from([1]), chunk])));
    control.once("close", () => end(true));
    control.once("error", () => end(false));
    ws.on("message", (data: Buffer) => {
      if (data[0] === 0) control.write(data.subarray(1));
      if (data[0] === 255 && data[1] === 0) control.end();
    });
    ws.on("close", () => control.destroy());
  };
  const execTar = async (ws: WebSocket, place: string) => {
    const bytes = await packPlace(place, options.holderEntries ?? recorded.holder?.entries ?? []);
    // As a kubelet streams it: stdout in frames, then the Status on channel 3, then the close.
    for (let at = 0; at < bytes.length; at += 32 * 1024) ws.send(Buffer.concat([Buffer.from([1]), bytes.subarray(at, at + 32 * 1024)]));
    ws.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(options.execStatus ?? { metadata: {}, status: "Success" }))]));
    ws.close(1000);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    // client-node speaks plain HTTP only with TLS verification off; the fake listens on loopback only.
    clusters: [{ name: "fake", cluster: { server: `http://127.0.0.1:${port}`, "insecure-skip-tls-verify": true } }],
    users: [{ name: "runner", user: { token: "fake-token-for-tests" } }],
    contexts: [{ name: "fake", context: { cluster: "fake", user: "runner" } }],
    "current-context": "fake",
  });
  return {
    kubeconfig,
    requests,
    stdin: () => ({ bytes: Buffer.concat(stdinChunks), closed: stdinClosed }),
    inputs: () => unpacked,
    objects: () => [...objects.keys()],
    close: async () => {
      for (const res of [...watchers, ...proxyWatchers.keys()]) res.end();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
