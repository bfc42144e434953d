// The control endpoint: how a runtime in another process (the orchestrator) registers and revokes
// Runs on a proxy running in its own container. It listens apart from the agents' port: on a unix
// socket (mode 0600) or on an address only the orchestrator's network reaches, and every request
// carries the shared control secret as a bearer token.
// Invariants: nothing here is reachable with a per-Run token; no answer or log line holds a
// credential or the secret; a request body is bounded before it is parsed.

import { chmod, lstat, unlink } from "node:fs/promises";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { Logger } from "pino";
import { MAX_CONTROL_BODY_BYTES, MIN_CONTROL_SECRET_LENGTH } from "./limits.js";
import type { EgressControl } from "./proxy.js";
import { EgressArgumentError, type EgressBreach } from "./run.js";
import { sameSecret } from "./token.js";

/** The routes, relative to the endpoint; the client in control-client.ts speaks exactly these. */
export const CONTROL_ROUTES = {
  register: "POST /v1/runs",
  meter: "GET /v1/runs/{runId}/meter",
  revoke: "DELETE /v1/runs/{runId}",
  bind: "PUT /v1/runs/{runId}/sources",
  events: "GET /v1/events",
} as const;

export type EgressControlEndpointOptions = {
  /** A unix socket to listen on (made mode 0600): the choice when the orchestrator shares a volume with the proxy. */
  readonly socketPath?: string;
  /** Otherwise a TCP address; never one on the agents' network. Default host "127.0.0.1". */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  /** The shared secret the orchestrator sends as `Authorization: Bearer`; at least MIN_CONTROL_SECRET_LENGTH characters. */
  readonly secret: string;
  /** Default: none (the proxy's own log has a line per Run registered and revoked). */
  readonly logger?: Logger;
};

export type EgressControlEndpoint = {
  /** "http://host:port" for a TCP endpoint; undefined on a unix socket. */
  readonly url?: string;
  readonly socketPath?: string;
  readonly close: () => Promise<void>;
};

export async function startEgressControlEndpoint(control: EgressControl, options: EgressControlEndpointOptions): Promise<EgressControlEndpoint> {
  const { secret } = options;
  if (typeof secret !== "string" || secret.length < MIN_CONTROL_SECRET_LENGTH) {
    throw new EgressArgumentError(
      `secret (${typeof secret === "string" ? `${secret.length} characters, not shown` : "missing"}) is shorter than ${MIN_CONTROL_SECRET_LENGTH} characters; generate one, e.g. 32 random bytes in base64url`,
    );
  }
  if (options.socketPath !== undefined && (options.host !== undefined || options.port !== undefined)) {
    throw new EgressArgumentError(`socketPath ${JSON.stringify(options.socketPath)} and host/port were both given; pass one place to listen`);
  }
  const streams = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const auth = req.headers["authorization"];
    const presented = typeof auth === "string" ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth)?.[1] : undefined;
    if (presented === undefined || !sameSecret(presented, secret)) {
      answer(res, 401, { error: { code: "unauthorized", message: "the control endpoint needs the control secret as Authorization: Bearer" } });
      return;
    }
    const method = req.method ?? "GET";
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const runPath = /^\/v1\/runs\/([^/]+)(\/meter|\/sources)?$/.exec(path);
    const runId = runPath === null ? undefined : decodeURIComponent(runPath[1] ?? "");
    if (method === "POST" && path === "/v1/runs") {
      const body = await readJson(req);
      if (body === undefined) {
        answer(res, 400, {
          error: {
            code: "bad_request",
            message: `the body is not a JSON object of at most ${MAX_CONTROL_BODY_BYTES} bytes; send { runId, provider, credential, budget? }`,
          },
        });
        return;
      }
      try {
        answer(res, 201, await control.register(body as never));
      } catch (error) {
        if (!(error instanceof EgressArgumentError)) throw error;
        answer(res, 400, { error: { code: "bad_registration", message: error.message } });
      }
      return;
    }
    if (runId !== undefined && method === "GET" && runPath?.[2] === "/meter") {
      const reading = await control.meter(runId);
      answer(res, reading === undefined ? 404 : 200, reading ?? notFound(runId));
      return;
    }
    if (runId !== undefined && method === "PUT" && runPath?.[2] === "/sources") {
      const body = await readJson(req);
      const sources = (body as { sources?: unknown } | undefined)?.sources;
      try {
        const bound = await control.bind(runId, sources as readonly string[]);
        answer(res, bound ? 200 : 404, bound ? { runId, sources } : notFound(runId));
      } catch (error) {
        if (!(error instanceof EgressArgumentError)) throw error;
        answer(res, 400, { error: { code: "bad_sources", message: error.message } });
      }
      return;
    }
    if (runId !== undefined && method === "DELETE" && runPath?.[2] === undefined) {
      const reading = await control.revoke(runId);
      answer(res, reading === undefined ? 404 : 200, reading ?? notFound(runId));
      return;
    }
    if (method === "GET" && path === "/v1/events") {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      res.write(": agentcage egress events\n\n");
      streams.add(res);
      const unsubscribe = control.onBreach((breach: EgressBreach) => res.write(`event: breach\ndata: ${JSON.stringify(breach)}\n\n`));
      const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
      res.once("close", () => {
        clearInterval(keepAlive);
        unsubscribe();
        streams.delete(res);
      });
      return;
    }
    answer(res, 404, {
      error: {
        code: "not_found",
        message: `${method} ${JSON.stringify(path)} is not a control route; the routes are ${Object.values(CONTROL_ROUTES).join(", ")}`,
      },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger?.error({ error: error instanceof Error ? error.message : String(error) }, "egress control request failed");
      if (!res.headersSent) answer(res, 500, { error: { code: "internal", message: "the control endpoint failed; see the proxy's log" } });
      else res.destroy();
    });
  });
  if (options.socketPath !== undefined) {
    await removeStaleSocket(options.socketPath);
    server.listen(options.socketPath);
  } else server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  await Promise.race([once(server, "listening"), once(server, "error").then(([error]) => Promise.reject(error as Error))]);
  if (options.socketPath !== undefined) await chmod(options.socketPath, 0o600);
  const address = server.address();
  const url =
    options.socketPath === undefined && typeof address === "object" && address !== null
      ? `http://${hostForUrl(options.host ?? "127.0.0.1")}:${(address as AddressInfo).port}`
      : undefined;
  return {
    ...(url === undefined ? {} : { url }),
    ...(options.socketPath === undefined ? {} : { socketPath: options.socketPath }),
    close: async () => {
      for (const res of streams) res.end();
      const closed = once(server, "close");
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function notFound(runId: string): unknown {
  return { error: { code: "unknown_run", message: `runId ${JSON.stringify(runId)} is not registered (never, or revoked already)` } };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONTROL_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function hostForUrl(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
}

/** A socket file nobody listens on (a restarted proxy's) is removed; a live one, or any other file, is left for listen to refuse. */
async function removeStaleSocket(path: string): Promise<void> {
  const found = await lstat(path).catch(() => undefined);
  if (found === undefined || !found.isSocket()) return;
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
  if (!live) await unlink(path);
}
