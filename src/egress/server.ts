// The proxy's listening server: node's HTTP server, with requests routed (model-request.ts),
// CONNECT tunnelled (tunnel.ts) and every protocol upgrade refused. Every connection is bounded in
// time until its request has arrived whole (an answer may then stream for many minutes), and in
// number per source. Invariant: one Run's agent cannot hold the door shut for the others.

import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { CONNECTIONS_CHECK_INTERVAL_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_CONNECTIONS, MAX_CONNECTIONS_PER_SOURCE } from "./limits.js";
import type { RequestLog } from "./live-run.js";
import { logRequest } from "./proxy-log.js";
import type { ProxyState } from "./proxy-state.js";
import { refuseSocket } from "./refusals.js";

export type ProxyHandlers = {
  readonly request: (req: IncomingMessage, res: ServerResponse) => void;
  readonly connect: (req: IncomingMessage, socket: Socket, head: Buffer) => void;
};

export type ListeningServer = {
  readonly server: Server;
  readonly port: number;
  /** "http://<host>:<port>", with a loopback host for a server listening on every address. */
  readonly url: string;
};

/** Starts listening where the options say; rejects when the address cannot be had. */
export async function listen(state: ProxyState, handlers: ProxyHandlers): Promise<ListeningServer> {
  const { config } = state;
  // node's headers timeout also closes a connection that sends nothing at all (with a 408).
  const server = createServer(
    {
      headersTimeout: config.timeouts.headersMs,
      requestTimeout: config.timeouts.requestMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    },
    handlers.request,
  );
  server.maxConnections = MAX_CONNECTIONS;
  boundPerSource(server);
  server.on("connect", handlers.connect);
  server.on("upgrade", (req: IncomingMessage, socket: Socket) => refuseUpgrade(state, req, socket));
  server.listen(config.port, config.host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return { server, port, url: `http://${urlHost(config.host)}:${port}` };
}

/** At most MAX_CONNECTIONS_PER_SOURCE connections at once from one address; more are closed at once. */
function boundPerSource(server: Server): void {
  const connectionsFrom = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const source = socket.remoteAddress ?? "";
    const count = (connectionsFrom.get(source) ?? 0) + 1;
    if (count > MAX_CONNECTIONS_PER_SOURCE) {
      socket.destroy();
      return;
    }
    connectionsFrom.set(source, count);
    // node times out headers only once a byte of them has come: a connection that sends nothing is closed here.
    socket.once("close", () => {
      const left = (connectionsFrom.get(source) ?? 1) - 1;
      if (left <= 0) connectionsFrom.delete(source);
      else connectionsFrom.set(source, left);
    });
  });
}

function refuseUpgrade(state: ProxyState, req: IncomingMessage, socket: Socket): void {
  const started = performance.now();
  const entry: RequestLog = {
    method: req.method ?? "GET",
    bytesIn: 0,
    bytesOut: 0,
    path: (req.url ?? "").split("?")[0] ?? "",
    status: 405,
    refused: "upgrade_not_allowed",
  };
  socket.on("error", () => undefined);
  refuseSocket(socket, 405, "upgrade_not_allowed", "protocol upgrades (websockets) are refused; use the provider's HTTP API");
  logRequest(state, entry, started);
}

function urlHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
}
