// The allowlist mode's CONNECT: a Run's token (Proxy-Authorization, Bearer or Basic) opens a TCP
// tunnel to one host:port the Operator listed, and the bytes pass both ways untouched (no TLS
// interception: the proxy sees neither the content nor the credentials inside).
// Invariants: no connection is opened to an unlisted target, to a listed name that resolves inside
// this host or its private networks (destination.ts), or for an unknown token; a tunnel
// is cut when its Run is revoked; each CONNECT gets one log line, at its end.

import type { IncomingMessage } from "node:http";
import { connect as netConnect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { resolveDestination } from "./destination.js";
import { MAX_RUN_TUNNELS, TUNNEL_IDLE_TIMEOUT_MS } from "./limits.js";
import { connectTarget } from "./connect-target.js";
import type { LiveRun, RequestLog } from "./live-run.js";
import { fromItsRun, presentedElsewhere } from "./sources.js";
import { refuseSocket, type RefusalCode } from "./refusals.js";

export type ConnectDeps = {
  /** Normalised host:port pairs; empty is the model-only mode, where every CONNECT is refused. */
  readonly allowlist: ReadonlySet<string>;
  readonly runOfToken: (token: string | undefined) => LiveRun | undefined;
  readonly log: (entry: RequestLog, started: number) => void;
};

export function createConnectHandler({ allowlist, runOfToken, log }: ConnectDeps): (req: IncomingMessage, socket: Socket, head: Buffer) => void {
  return (req: IncomingMessage, socket: Socket, head: Buffer): void => {
    const started = performance.now();
    const entry: RequestLog = { method: "CONNECT", bytesIn: 0, bytesOut: 0, host: req.url ?? "" };
    socket.on("error", () => undefined);
    const refuseWith = (status: number, code: RefusalCode, message: string, headers?: Readonly<Record<string, string>>): void => {
      entry.status = status;
      entry.refused = code;
      refuseSocket(socket, status, code, message, headers);
      log(entry, started);
    };
    const run = runOfToken(proxyToken(req.headers["proxy-authorization"]));
    // A Run registered with its own allowlist has that one; any other has the proxy's.
    const own = run?.registration.allowlist;
    const listed = own === undefined ? allowlist : new Set(own.map((entry) => connectTarget(entry)?.key ?? ""));
    if (listed.size === 0) {
      if (run !== undefined) {
        entry.runId = run.registration.runId;
        run.meter.countRefused();
      }
      refuseWith(405, "connect_not_allowed", `CONNECT is refused: ${run === undefined ? "this proxy's" : "this Run's"} policy is model-only (no allowlist)`);
      return;
    }
    if (run === undefined) {
      const proxyAuth = { "proxy-authenticate": 'Basic realm="agentcage-egress"' };
      const what = req.headers["proxy-authorization"] === undefined ? "no per-Run token was presented" : "the per-Run token is unknown or was revoked";
      refuseWith(
        407,
        req.headers["proxy-authorization"] === undefined ? "missing_token" : "unknown_token",
        `${what}; send Proxy-Authorization: Bearer <token>, or Basic with the token as the password`,
        proxyAuth,
      );
      return;
    }
    entry.runId = run.registration.runId;
    if (!fromItsRun(run, socket.remoteAddress)) {
      run.meter.countRefused();
      refuseWith(403, "token_elsewhere", presentedElsewhere(socket.remoteAddress));
      return;
    }
    const target = connectTarget(req.url ?? "");
    if (target === undefined || !listed.has(target.key)) {
      run.meter.countRefused();
      refuseWith(403, "connect_target_not_listed", `${JSON.stringify(req.url ?? "")} is not on ${own === undefined ? "this proxy's" : "this Run's"} allowlist`);
      return;
    }
    if (run.tunnels >= MAX_RUN_TUNNELS) {
      run.meter.countRefused();
      refuseWith(429, "too_many_tunnels", `the Run has ${MAX_RUN_TUNNELS} tunnels open already; close one first`);
      return;
    }
    // The listed name is resolved here and its address checked; the tunnel goes to that address.
    let upstream: Socket | undefined;
    let established = false;
    const stop = (): void => {
      upstream?.destroy();
      socket.destroy();
    };
    run.inFlight.add(stop);
    run.tunnels += 1;
    // A tunnel nothing passes through is cut, so idle ones do not pile up.
    socket.setTimeout(TUNNEL_IDLE_TIMEOUT_MS, stop);
    socket.once("close", () => {
      upstream?.destroy();
      run.inFlight.delete(stop);
      run.tunnels -= 1;
      if (established) log(entry, started);
      else if (entry.refused === undefined) {
        entry.error = "the client left before the tunnel was open";
        log(entry, started);
      }
    });
    const open = (address: string, family: 4 | 6): void => {
      const to = netConnect({ host: address, port: target.port, family });
      upstream = to;
      to.setTimeout(TUNNEL_IDLE_TIMEOUT_MS, stop);
      to.once("connect", () => {
        established = true;
        entry.status = 200;
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) to.write(head);
        entry.bytesIn += head.length;
        socket.on("data", (chunk: Buffer) => (entry.bytesIn += chunk.length));
        to.on("data", (chunk: Buffer) => (entry.bytesOut += chunk.length));
        socket.pipe(to);
        to.pipe(socket);
      });
      to.on("error", (error) => {
        if (established) {
          socket.destroy();
          return;
        }
        entry.error = error.message;
        refuseWith(502, "connect_failed", `could not reach ${target.key}: ${error.message}`);
      });
      to.once("close", () => socket.end());
    };
    void resolveDestination(target.host).then((destination) => {
      if (socket.destroyed) return;
      if ("address" in destination) {
        open(destination.address, destination.family);
        return;
      }
      run.meter.countRefused();
      refuseWith(403, "connect_destination_refused", destination.refused);
    });
  };
}

/** The token in Proxy-Authorization: `Bearer <token>`, or `Basic` with the token as the password (any user name). */
function proxyToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (bearer !== null) return bearer[1];
  const basic = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(header);
  if (basic === null) return undefined;
  const decoded = Buffer.from(basic[1] ?? "", "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}
