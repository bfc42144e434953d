// Forwarding one admitted request to its CLI's provider with the real credential, and streaming
// the answer back decoded and masked, metered as it passes.
// Invariants: an answer is never buffered whole; nothing of an answer in an encoding the proxy
// cannot inspect is passed on; a model call's admission is settled exactly once, however the call
// ends (with what was seen of its usage); revoking the Run cuts the call.

import { request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { createStreamMasker } from "../redact/index.js";
import { decoderFor, maskedHeaders } from "./answer-guard.js";
import { MAX_REQUEST_BODY_BYTES } from "./limits.js";
import type { LiveRun, RequestLog } from "./live-run.js";
import type { Settle } from "./meter.js";
import { emitBreach } from "./proxy-log.js";
import type { ProxyState } from "./proxy-state.js";
import { clientResponseHeaders, upstreamRequestHeaders } from "./headers.js";
import { EGRESS_PROVIDERS } from "./providers/index.js";
import { refuse } from "./refusals.js";
import { createUsageReader } from "./usage-reader.js";

export type Forwarded = {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly run: LiveRun;
  readonly upstream: URL;
  readonly target: string;
  readonly entry: RequestLog;
  /** A model call's admission: its answer's usage settles it, once. Absent for a call that is not metered. */
  readonly settle?: Settle;
  /** The body when it was read already; absent, the client's body goes up as it streams in. */
  readonly body?: Buffer;
};

/** Settles the call's admission: with nothing until an answer comes, then with what the answer used. */
type Metering = { finish: () => void };

export function forward(state: ProxyState, call: Forwarded): void {
  const { res, run, settle } = call;
  const upstreamReq = openUpstream(state, call);
  const metering: Metering = { finish: () => void settle?.(undefined) };
  const stop = (): void => {
    metering.finish();
    upstreamReq.destroy();
    res.destroy();
  };
  run.inFlight.add(stop);
  res.once("close", () => {
    run.inFlight.delete(stop);
    if (!res.writableFinished) upstreamReq.destroy();
    // However the call ended, its admission is settled (with what was seen of its usage).
    metering.finish();
  });
  upstreamReq.once("response", (up) => answer(state, call, up, metering));
  upstreamReq.on("error", (error) => upstreamFailed(call, error));
  sendBody(call, upstreamReq);
}

function openUpstream(state: ProxyState, { req, run, upstream, target }: Forwarded): ClientRequest {
  const { provider, credential } = run.registration;
  const https = upstream.protocol === "https:";
  const prefix = upstream.pathname.replace(/\/+$/, "");
  return (https ? httpsRequest : httpRequest)({
    protocol: upstream.protocol,
    hostname: upstream.hostname.startsWith("[") ? upstream.hostname.slice(1, -1) : upstream.hostname,
    port: upstream.port === "" ? (https ? 443 : 80) : Number(upstream.port),
    method: req.method,
    path: `${prefix}${target}`,
    headers: { ...upstreamRequestHeaders(EGRESS_PROVIDERS[provider], credential, req.headers), host: upstream.host },
    agent: https ? state.agents.https : state.agents.http,
  });
}

/** Streams the provider's answer to the agent: decoded and masked (an upstream that echoes the credential hands back nothing of it). */
function answer(state: ProxyState, { res, run, entry, settle }: Forwarded, up: IncomingMessage, metering: Metering): void {
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
  const reader = settle !== undefined && status < 300 ? createUsageReader(run.registration.provider, up.headers["content-type"], "identity") : undefined;
  let done = false;
  metering.finish = (): void => {
    if (done) return;
    done = true;
    const used = reader?.end();
    if (used !== undefined) entry.tokens = used.usage;
    const breach = settle?.(used, status);
    if (breach !== undefined) emitBreach(state, breach);
  };
  const headers = maskedHeaders(clientResponseHeaders(up.headers), run.answerMasker);
  // Decoding and masking change the body's length: it goes chunked.
  delete headers["content-length"];
  if (decoder !== null) delete headers["content-encoding"];
  res.writeHead(status, headers);
  const counted = (chunk: Buffer): void => {
    entry.bytesOut += chunk.length;
    run.meter.streamed();
  };
  up.on("error", () => res.destroy());
  const body = decoder === null ? up : up.pipe(decoder);
  if (decoder !== null) {
    up.on("data", counted);
    decoder.on("error", () => res.destroy());
  }
  // One handler a chunk, no stream between: counted, read for usage, masked and written; the
  // answer pauses while the agent's socket is full.
  const masking = createStreamMasker(run.answerMasker);
  body.on("data", (chunk: Buffer) => {
    if (decoder === null) counted(chunk);
    reader?.write(chunk);
    const masked = masking.write(chunk);
    if (masked.length > 0 && !res.write(masked)) body.pause();
  });
  res.on("drain", () => body.resume());
  body.once("end", () => {
    metering.finish();
    res.end(masking.end());
  });
  up.once("close", () => {
    if (!up.complete) {
      metering.finish();
      res.destroy();
    }
  });
}

function upstreamFailed({ res, upstream, entry }: Forwarded, error: Error): void {
  if (entry.refused !== undefined) return;
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  entry.error = error.message;
  refuse(res, 502, "upstream_unreachable", `could not reach ${upstream.host}: ${error.message}`);
  entry.refused = "upstream_unreachable";
}

/** Sends the body read already, or streams the client's up, cut past MAX_REQUEST_BODY_BYTES. */
function sendBody({ req, res, entry, body }: Forwarded, upstreamReq: ClientRequest): void {
  if (body !== undefined) {
    entry.bytesIn = body.length;
    upstreamReq.end(body);
    return;
  }
  req.on("error", () => upstreamReq.destroy());
  req.on("data", (chunk: Buffer) => {
    entry.bytesIn += chunk.length;
    if (entry.bytesIn > MAX_REQUEST_BODY_BYTES && entry.refused === undefined) {
      entry.refused = "request_too_large";
      req.unpipe(upstreamReq);
      upstreamReq.destroy();
      refuse(res, 413, "request_too_large", `the request body passed ${MAX_REQUEST_BODY_BYTES} bytes; nothing of it was answered`, { connection: "close" });
    }
  });
  req.pipe(upstreamReq);
}
