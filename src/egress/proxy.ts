// The egress proxy: one HTTP server that agents reach instead of their provider. It swaps a
// Run's token for the real credential, forwards only the provider paths of that Run's CLI to that
// CLI's upstream, meters the answers as they stream through, refuses model calls past a budget,
// refuses calls asking the provider to reach other hosts (request-policy.ts, providers.ts), and
// in the allowlist mode tunnels CONNECT to listed host:port pairs (tunnel.ts).
// Invariants: nothing is forwarded for an unknown or revoked token or an unlisted path; a secret
// (credential or token) never appears in a log line, an error or an event; a response body is
// never buffered whole on its way to the client.

import { once } from "node:events";
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { pino } from "pino";
import { createMasker, type Masker } from "../redact/index.js";
import { credentialMasker, decoderFor, maskedHeaders, maskingStream } from "./answer-guard.js";
import {
  CONNECTIONS_CHECK_INTERVAL_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_BUDGET_WAIT_MS,
  MAX_CONNECTIONS,
  MAX_CONNECTIONS_PER_SOURCE,
  MAX_LIVE_RUNS,
  MAX_REQUEST_BYTES,
  MAX_RUN_REQUESTS_IN_FLIGHT,
} from "./limits.js";
import type { LiveRun, RequestLog } from "./live-run.js";
import { createMeter, type Admission, type Reservation, type ResponseUsage } from "./meter.js";
import { validateProxyOptions, type EgressProxyOptions } from "./options.js";
import { BUDGET_REFUSAL_STATUS, clientResponseHeaders, presentedToken, refusedBeta, routeOf, upstreamRequestHeaders } from "./providers.js";
import { refuse, refuseSocket, type RefusalCode } from "./refusals.js";
import { fromItsRun, presentedElsewhere, sourceList } from "./sources.js";
import { EgressArgumentError, validateRegistration, validateSources, type EgressBreach, type RunMeter, type RunRegistration } from "./run.js";
import { readHeldBody, type HeldBytes } from "./request-body.js";
import { openaiToolRefusal, readModelCallBody } from "./request-policy.js";
import { worstCaseOf } from "./reservation.js";
import { newRunToken, tokenKey } from "./token.js";
import { createConnectHandler } from "./tunnel.js";
import { createUsageReader } from "./usage-reader.js";

/** What the runtime needs of the proxy, in process or over the control endpoint alike. */
export type EgressControl = {
  /** Registers a Run; resolves with its token, which the agent presents instead of a credential. Rejects a Run id already registered. */
  readonly register: (registration: RunRegistration) => Promise<{ readonly token: string }>;
  /** Kills the Run's token at once, cuts its requests and tunnels in flight, and resolves with its final meter (undefined when unknown). */
  readonly revoke: (runId: string) => Promise<RunMeter | undefined>;
  /** The Run's usage so far (undefined when unknown or revoked). */
  readonly meter: (runId: string) => Promise<RunMeter | undefined>;
  /** Calls the listener once per Run that passes a cap; returns the unsubscribe. */
  readonly onBreach: (listener: (breach: EgressBreach) => void) => () => void;
  /**
   * Binds a live Run's token to where its agent is (its Run's network, as addresses or CIDR
   * ranges): from anywhere else the token is refused. Resolves false when the Run is unknown.
   */
  readonly bind: (runId: string, sources: readonly string[]) => Promise<boolean>;
};

export type EgressProxy = EgressControl & {
  /** "http://<host>:<port>": claude's ANTHROPIC_BASE_URL; codex's provider base_url is url + "/v1". */
  readonly url: string;
  readonly port: number;
  /** Revokes every Run and stops listening. */
  readonly close: () => Promise<void>;
};

export async function createEgressProxy(options: EgressProxyOptions = {}): Promise<EgressProxy> {
  const config = validateProxyOptions(options);
  const logger = options.logger ?? pino({ name: "agentcage-egress" });
  const runs = new Map<string, LiveRun>();
  // Bytes of model-call bodies held for every Run at once (request-body.ts).
  const heldBytes: HeldBytes = { held: 0 };
  const byToken = new Map<string, LiveRun>();
  const listeners = new Set<(breach: EgressBreach) => void>();
  if (options.onBreach !== undefined) listeners.add(options.onBreach);
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

  // Every credential ever registered stays masked; a token only while its Run is live.
  const credentials = new Set<string>();
  let masker: Masker | undefined;
  const tokens = new Map<string, string>(); // runId -> token, for the masker only
  const secretsMasker = (): Masker => {
    masker ??= createMasker([...credentials, ...tokens.values()]);
    return masker;
  };

  const log = (entry: RequestLog, started: number): void => {
    entry.durationMs = Math.round((performance.now() - started) * 100) / 100;
    const line = secretsMasker().maskDeep(entry);
    if (entry.refused !== undefined) logger.warn(line, "egress refused");
    else logger.info(line, "egress");
  };

  const emitBreach = (breach: EgressBreach): void => {
    logger.warn(secretsMasker().maskDeep({ runId: breach.runId, cap: breach.cap, limit: breach.limit, used: breach.used }), "egress budget passed");
    for (const listener of listeners) {
      try {
        listener(breach);
      } catch (error) {
        logger.error({ runId: breach.runId, error: secretsMasker().mask(String(error)) }, "egress breach listener threw");
      }
    }
  };

  const runOfToken = (token: string | undefined): LiveRun | undefined => (token === undefined ? undefined : byToken.get(tokenKey(token)));

  const handleRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    const method = req.method ?? "GET";
    const target = req.url ?? "/";
    const entry: RequestLog = { method, bytesIn: 0, bytesOut: 0 };
    res.once("close", () => {
      entry.status = res.headersSent ? res.statusCode : 0;
      log(entry, started);
    });
    const refuseWith = (status: number, code: RefusalCode, message: string, headers?: Readonly<Record<string, string>>): void => {
      entry.refused = code;
      refuse(res, status, code, message, headers);
    };

    if (!target.startsWith("/")) {
      const host = hostOf(target);
      if (host !== undefined) entry.host = host;
      refuseWith(405, "not_a_proxy", "this proxy forwards only its Run's model API; plain-HTTP proxying to other hosts is refused");
      return;
    }
    const queryAt = target.indexOf("?");
    const path = queryAt < 0 ? target : target.slice(0, queryAt);
    entry.path = path;
    if (method === "HEAD" && PROBE_PATHS.has(path)) {
      // claude's reachability probe (it sends no key with it): answered here, and nothing is forwarded.
      res.writeHead(200, { "content-length": "0" });
      res.end();
      return;
    }
    const token = presentedToken(req.headers);
    if (token === undefined) {
      refuseWith(401, "missing_token", "no per-Run token was presented; send it as x-api-key or Authorization: Bearer");
      return;
    }
    const run = runOfToken(token);
    if (run === undefined) {
      refuseWith(401, "unknown_token", "the per-Run token is unknown or was revoked (its Run has ended); start a new Run");
      return;
    }
    const { registration, meter } = run;
    const cli = registration.cli;
    entry.runId = registration.runId;
    if (!fromItsRun(run, req.socket.remoteAddress)) {
      meter.countRefused();
      refuseWith(403, "token_elsewhere", presentedElsewhere(req.socket.remoteAddress));
      return;
    }
    const upstream = config.upstreams[cli];
    entry.host = upstream.host;
    const route = routeOf(cli, method, path);
    if (route === undefined) {
      meter.countRefused();
      refuseWith(403, "path_not_allowed", `${method} ${JSON.stringify(path)} is not a ${cli} model API call this proxy forwards`);
      return;
    }
    const beta = refusedBeta(cli, req.headers);
    if (beta !== undefined) {
      meter.countRefused();
      refuseWith(403, "feature_not_allowed", `anthropic-beta ${JSON.stringify(beta)} is refused: it lets the provider's servers reach other hosts for the Run`);
      return;
    }
    if (run.requestsInFlight >= MAX_RUN_REQUESTS_IN_FLIGHT) {
      meter.countRefused();
      refuseWith(429, "too_many_requests", `the Run has ${MAX_RUN_REQUESTS_IN_FLIGHT} requests in flight already; wait for one to end`, {
        "retry-after": "1",
        "x-should-retry": "true",
      });
      return;
    }
    run.requestsInFlight += 1;
    res.once("close", () => (run.requestsInFlight -= 1));
    if (!route.modelCall) {
      meter.countRequest();
      forward(req, res, run, upstream, target, undefined, entry, undefined);
      return;
    }
    // A model call is read whole first (bounded: request-body.ts), so its tools and its bounds can
    // be checked before anything of it leaves; then the budget admits it, or it waits, or it is refused.
    void readHeldBody(req, run.heldBytes, heldBytes).then(async (read) => {
      if (read.kind === "gone" || res.destroyed) return;
      if (read.kind === "too_large") {
        entry.bytesIn = read.limit;
        meter.countRefused();
        if (read.bound === "request")
          refuseWith(413, "request_too_large", `the request body passed ${read.limit} bytes; nothing of it was answered`, { connection: "close" });
        else
          refuseWith(
            read.bound === "run" ? 429 : 503,
            "too_many_bytes_held",
            `${read.bound === "run" ? "the Run's" : "every Run's"} request bodies in the proxy passed ${read.limit} bytes at once; send fewer or smaller calls at a time`,
            { connection: "close", "retry-after": "1", "x-should-retry": "true" },
          );
        return;
      }
      res.once("close", read.release);
      entry.bytesIn = read.body.length;
      if (runs.get(registration.runId) !== run) {
        refuseWith(401, "unknown_token", "the per-Run token was revoked while its request was read (its Run has ended)");
        return;
      }
      const parsed = readModelCallBody(read.body, req.headers["content-encoding"]);
      const refusal = "refusal" in parsed ? parsed.refusal : cli === "codex" ? openaiToolRefusal(parsed.body) : undefined;
      if (refusal !== undefined) {
        meter.countRefused();
        refuseWith(403, "feature_not_allowed", refusal);
        return;
      }
      if ("refusal" in parsed) return; // refused just above; tells the compiler the body was read
      const admission = await admitModelCall(run, worstCaseOf(cli, parsed.body, parsed.bytes), res);
      if (admission === undefined || res.destroyed) {
        if (admission?.kind === "admitted") admission.settle(undefined);
        return;
      }
      if (admission.kind === "refused") {
        meter.countRefused();
        refuseWith(BUDGET_REFUSAL_STATUS[cli], "budget_exceeded", admission.refused.message);
        if (admission.fresh) emitBreach(admission.refused);
        return;
      }
      if (admission.kind === "wait") {
        meter.countRefused();
        refuseWith(
          429,
          "budget_wait",
          `the Run's calls in flight could spend what is left of its budget, and did not settle within ${MAX_BUDGET_WAIT_MS / 1000} s; call again`,
          { "retry-after": "1", "x-should-retry": "true" },
        );
        return;
      }
      forward(req, res, run, upstream, target, admission.settle, entry, read.body);
    });
  };

  /**
   * Admits a model call against the Run's budget: at once, or once the calls in flight have settled
   * enough of it (a "wait" answer after MAX_BUDGET_WAIT_MS); undefined when the client left meanwhile.
   */
  const admitModelCall = async (run: LiveRun, reservation: Reservation, res: ServerResponse): Promise<Admission | undefined> => {
    const giveUp = Date.now() + MAX_BUDGET_WAIT_MS;
    // One listener for the client leaving, however many times the call is woken to try again.
    const gone = once(res, "close").then(() => "gone" as const);
    for (;;) {
      const admission = run.meter.admit(reservation);
      if (admission.kind !== "wait") return admission;
      const left = giveUp - Date.now();
      if (left <= 0) return admission;
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        run.meter.settled().then(() => "settled" as const),
        gone,
        new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left))),
      ]);
      clearTimeout(timer);
      if (outcome === "gone") return undefined;
    }
  };

  /**
   * Sends the request upstream: `body` when it was read already, else the client's body as it
   * streams in. `settle` is a model call's admission: its answer's usage settles it, once.
   */
  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    run: LiveRun,
    upstream: URL,
    target: string,
    settle: ((response: ResponseUsage | undefined) => EgressBreach | undefined) | undefined,
    entry: RequestLog,
    body: Buffer | undefined,
  ): void => {
    const metered = settle !== undefined;
    const { cli, credential } = run.registration;
    const https = upstream.protocol === "https:";
    const prefix = upstream.pathname.replace(/\/+$/, "");
    const upstreamReq = (https ? httpsRequest : httpRequest)({
      protocol: upstream.protocol,
      hostname: upstream.hostname.startsWith("[") ? upstream.hostname.slice(1, -1) : upstream.hostname,
      port: upstream.port === "" ? (https ? 443 : 80) : Number(upstream.port),
      method: req.method,
      path: `${prefix}${target}`,
      headers: { ...upstreamRequestHeaders(cli, credential, req.headers), host: upstream.host },
      agent: https ? agents.https : agents.http,
    });
    let finishMetering = (): void => {
      settle?.(undefined);
    };
    const stop = (): void => {
      finishMetering();
      upstreamReq.destroy();
      res.destroy();
    };
    run.inFlight.add(stop);
    res.once("close", () => {
      run.inFlight.delete(stop);
      if (!res.writableFinished) upstreamReq.destroy();
      // However the call ended, its admission is settled (with what was seen of its usage).
      finishMetering();
    });

    upstreamReq.once("response", (up) => {
      // What the agent gets is decoded and masked: an upstream that echoes the credential hands back nothing of it.
      const decoder = decoderFor(up.headers["content-encoding"]);
      if (decoder === undefined) {
        up.resume();
        entry.refused = "upstream_encoding";
        refuse(
          res,
          502,
          "upstream_encoding",
          `the provider answered in content-encoding ${JSON.stringify(String(up.headers["content-encoding"]))}, which the proxy cannot inspect; nothing of it was passed on`,
        );
        return;
      }
      const status = up.statusCode ?? 502;
      const reader = metered && status < 300 ? createUsageReader(cli, up.headers["content-type"], "identity") : undefined;
      let done = false;
      finishMetering = (): void => {
        if (done) return;
        done = true;
        const used = reader?.end();
        if (used !== undefined) entry.tokens = used.usage;
        const breach = settle?.(used);
        if (breach !== undefined) emitBreach(breach);
      };
      const headers = maskedHeaders(clientResponseHeaders(up.headers), run.answerMasker);
      // Decoding and masking change the body's length: it goes chunked.
      delete headers["content-length"];
      if (decoder !== null) delete headers["content-encoding"];
      res.writeHead(status, headers);
      up.on("data", (chunk: Buffer) => {
        entry.bytesOut += chunk.length;
        run.meter.streamed();
      });
      up.on("error", () => res.destroy());
      const body = decoder === null ? up : up.pipe(decoder);
      if (decoder !== null) decoder.on("error", () => res.destroy());
      if (reader !== undefined) body.on("data", (chunk: Buffer) => reader.write(chunk));
      body.once("end", finishMetering);
      up.once("close", () => {
        if (!up.complete) {
          finishMetering();
          res.destroy();
        }
      });
      body.pipe(maskingStream(run.answerMasker)).pipe(res);
    });
    upstreamReq.on("error", (error) => {
      if (entry.refused !== undefined) return;
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      entry.error = error.message;
      refuse(res, 502, "upstream_unreachable", `could not reach ${upstream.host}: ${error.message}`);
      entry.refused = "upstream_unreachable";
    });

    if (body !== undefined) {
      entry.bytesIn = body.length;
      upstreamReq.end(body);
      return;
    }
    req.on("error", () => upstreamReq.destroy());
    req.on("data", (chunk: Buffer) => {
      entry.bytesIn += chunk.length;
      if (entry.bytesIn > MAX_REQUEST_BYTES && entry.refused === undefined) {
        entry.refused = "request_too_large";
        req.unpipe(upstreamReq);
        upstreamReq.destroy();
        refuse(res, 413, "request_too_large", `the request body passed ${MAX_REQUEST_BYTES} bytes; nothing of it was answered`, { connection: "close" });
      }
    });
    req.pipe(upstreamReq);
  };

  const handleConnect = createConnectHandler({ allowlist: config.allowlist, runOfToken, log });

  const handleUpgrade = (req: IncomingMessage, socket: Socket): void => {
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
    log(entry, started);
  };

  // Every connection is bounded in time until its request has arrived whole (an answer may then
  // stream for many minutes), and in number per source: one Run's agent cannot hold the door shut.
  // node's headers timeout also closes a connection that sends nothing at all (with a 408).
  const server = createServer(
    {
      headersTimeout: config.timeouts.headersMs,
      requestTimeout: config.timeouts.requestMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    },
    handleRequest,
  );
  server.maxConnections = MAX_CONNECTIONS;
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
  server.on("connect", handleConnect);
  server.on("upgrade", handleUpgrade);
  server.listen(config.port, config.host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  const urlHost = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host;

  const revokeNow = (runId: string): RunMeter | undefined => {
    const run = runs.get(runId);
    if (run === undefined) return undefined;
    runs.delete(runId);
    byToken.delete(run.key);
    tokens.delete(runId);
    masker = undefined;
    for (const stop of [...run.inFlight]) stop();
    run.inFlight.clear();
    const reading = run.meter.reading();
    logger.info({ runId, turns: reading.turns, tokens: reading.tokens, costUsd: reading.costUsd }, "egress run revoked");
    return reading;
  };

  return {
    url: `http://${urlHost}:${port}`,
    port,
    register: async (value) => {
      const registration = validateRegistration(value);
      if (runs.has(registration.runId)) {
        throw new EgressArgumentError(`runId ${JSON.stringify(registration.runId)} is already registered; revoke it first, or register each Run once`);
      }
      if (runs.size >= MAX_LIVE_RUNS) {
        throw new EgressArgumentError(
          `runId ${JSON.stringify(registration.runId)} is refused: ${MAX_LIVE_RUNS} Runs are registered already; revoke the Runs that ended`,
        );
      }
      const token = newRunToken();
      const run: LiveRun = {
        registration: {
          runId: registration.runId,
          cli: registration.cli,
          credential: { ...registration.credential },
          ...(registration.budget === undefined ? {} : { budget: { ...registration.budget } }),
          ...(registration.allowlist === undefined ? {} : { allowlist: [...registration.allowlist] }),
          ...(registration.sources === undefined ? {} : { sources: [...registration.sources] }),
        },
        key: tokenKey(token),
        meter: createMeter(registration.runId, registration.cli, registration.budget),
        answerMasker: credentialMasker(registration.credential.value),
        heldBytes: { held: 0 },
        requestsInFlight: 0,
        tunnels: 0,
        sources: registration.sources === undefined ? undefined : sourceList(registration.sources),
        inFlight: new Set(),
      };
      runs.set(registration.runId, run);
      byToken.set(run.key, run);
      tokens.set(registration.runId, token);
      credentials.add(registration.credential.value);
      masker = undefined;
      logger.info(
        {
          runId: registration.runId,
          cli: registration.cli,
          credential: registration.credential.kind,
          budget: registration.budget ?? {},
          ...(registration.allowlist === undefined ? {} : { allowlist: registration.allowlist }),
        },
        "egress run registered",
      );
      return { token };
    },
    revoke: async (runId) => revokeNow(runId),
    meter: async (runId) => runs.get(runId)?.meter.reading(),
    bind: async (runId, sources) => {
      validateSources("sources", sources);
      const run = runs.get(runId);
      if (run === undefined) return false;
      run.sources = sourceList(sources);
      logger.info({ runId, sources }, "egress run bound to its network");
      return true;
    },
    onBreach: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      for (const runId of [...runs.keys()]) revokeNow(runId);
      const closed = once(server, "close");
      server.close();
      server.closeAllConnections();
      agents.http.destroy();
      agents.https.destroy();
      await closed;
    },
  };
}

/** Paths a CLI probes with HEAD, without a credential, to see that its API answers. */
const PROBE_PATHS: ReadonlySet<string> = new Set(["/", "/api/hello"]);

function hostOf(target: string): string | undefined {
  try {
    return new URL(target).host;
  } catch {
    return undefined;
  }
}
