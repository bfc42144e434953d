// A local stand-in for the Kubernetes API server that replays a recorded exchange (test/fixtures/
// kube): creates answered 201, one Pod's watch as newline-delimited WatchEvents, its attach as a
// websocket speaking the fixture's channel subprotocol, deletes and a label-selected list. It
// records every request so a test can check what the client sent, in order. Loopback only.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

type WatchLine = { readonly type: string; readonly object: Record<string, unknown> };
export type KubeExchange = {
  readonly pod: string;
  readonly namespace: string;
  readonly watchBeforeAttach: readonly WatchLine[];
  readonly attach?: { readonly protocol: string; readonly frames: ReadonlyArray<readonly [number, string]> };
  readonly watchAfterAttach?: readonly WatchLine[];
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
  readonly close: () => Promise<void>;
};

export type FakeOptions = {
  /** Answers a create of this kind with this HTTP status instead of 201. */
  readonly refuse?: { readonly kind: "pods" | "networkpolicies" | "secrets"; readonly status: number };
  /** What a label-selected list of Pods answers. */
  readonly listed?: readonly object[];
  /** Between two watch lines, as an API server's events come apart. */
  readonly lineGapMs?: number;
  /** Ends every open watch after this many lines, as an API server ends a watch at its timeout. */
  readonly endWatchesAfter?: number;
};

export async function startFakeKubeApi(recorded: KubeExchange, options: FakeOptions = {}): Promise<FakeKubeApi> {
  const requests: RecordedRequest[] = [];
  const emitted: WatchLine[] = [];
  const watchers = new Set<ServerResponse>();
  const stdinChunks: Buffer[] = [];
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
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text === "" ? undefined : JSON.parse(text);
      requests.push({ method: req.method ?? "", path: url.pathname, query: url.searchParams, body });
      const kind = url.pathname.split("/").at(-1) ?? "";
      if (req.method === "POST") {
        if (options.refuse?.kind === kind) {
          answer(res, options.refuse.status, {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: `${kind} is forbidden`,
            reason: "Forbidden",
            code: options.refuse.status,
          });
          return;
        }
        answer(res, 201, { ...body, metadata: { ...body.metadata, uid: "6f1c7f0e-3b8a-4d2e-9a57-2f0d6c1e4b90", resourceVersion: "81233" } });
        if (kind === "pods") void emitAll(recorded.watchBeforeAttach);
        return;
      }
      if (req.method === "GET" && url.searchParams.get("watch") === "true") {
        res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
        watchers.add(res);
        res.on("close", () => watchers.delete(res));
        // A new watch without a resourceVersion starts with the object as it is now, as ADDED.
        const last = emitted.at(-1);
        if (last !== undefined) res.write(`${JSON.stringify({ type: "ADDED", object: last.object })}\n`);
        return;
      }
      if (req.method === "GET") {
        answer(res, 200, { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "81300" }, items: options.listed ?? [] });
        return;
      }
      if (req.method === "DELETE") {
        answer(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
        return;
      }
      answer(res, 404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 });
    });
  });
  const sockets = new WebSocketServer({ noServer: true, handleProtocols: () => recorded.attach?.protocol ?? false });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://fake");
    requests.push({ method: "GET", path: url.pathname, query: url.searchParams, body: undefined });
    sockets.handleUpgrade(req, socket, head, (ws) => {
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
    });
  });
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
    close: async () => {
      for (const res of watchers) res.end();
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
