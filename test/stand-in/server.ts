// The stand-in model server: one node:http server answering both the Anthropic Messages API and
// the OpenAI Responses API for one scenario, recording every request for assertions.
// Invariants: it listens on loopback unless told otherwise; no credential value is ever recorded
// (credential headers become "[set]"); close() ends hung requests too, so a test never leaks one.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as zlib from "node:zlib";
import { anthropicAnswer, writeAnthropicMessage } from "./anthropic.js";
import { openaiAnswer, writeOpenAIResponse } from "./openai.js";
import { isScenario, isStatusScenario, type Scenario } from "./scenarios.js";

/** Request bodies larger than this are refused with 413 rather than buffered. */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/** Header names whose values are credentials: recorded as "[set]", never as the value. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"]);
export const REDACTED = "[set]";

export type StandInApi = "anthropic" | "openai" | "other";

export type RecordedRequest = {
  readonly method: string;
  /** The path without its query string, e.g. "/v1/messages". */
  readonly path: string;
  /** The query string without "?", "" when there is none (claude sends "beta=true"). */
  readonly query: string;
  /** Lower-case names; credential values replaced by "[set]"; repeated headers joined by ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON; the raw text when it is not JSON; undefined when there is no body. */
  readonly body: unknown;
  readonly api: StandInApi;
  /**
   * SHA-256 (hex) of the credential the request carried (x-api-key, or Authorization's bearer), so
   * a test can tell which key reached the model without the key being recorded; absent when none.
   */
  readonly credentialSha256?: string;
};

export type StandInOptions = {
  readonly scenario: Scenario;
  /** Default 0: the system picks a free port (read it back from `port`). */
  readonly port?: number;
  /** Default "127.0.0.1": the model must be reachable on loopback only. */
  readonly host?: string;
  /** Default none: called after each request is recorded (the standalone process logs with it). */
  readonly onRequest?: (request: RecordedRequest) => void;
};

export type StandInModel = {
  /** "http://127.0.0.1:<port>": claude's ANTHROPIC_BASE_URL; codex's provider base_url is url + "/v1". */
  readonly url: string;
  readonly port: number;
  /** Every request so far, in arrival order; the array grows while the server runs. */
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
};

function redactedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name] = CREDENTIAL_HEADERS.has(name) ? REDACTED : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function decode(raw: Buffer, encoding: string | undefined): Buffer | string {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case "":
    case "identity":
      return raw;
    case "gzip":
      return zlib.gunzipSync(raw);
    case "deflate":
      return zlib.inflateSync(raw);
    case "br":
      return zlib.brotliDecompressSync(raw);
    case "zstd": {
      const zstd = (zlib as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
      return zstd === undefined ? `[zstd body of ${raw.length} bytes: this Node cannot decode it]` : zstd(raw);
    }
    default:
      return `[${encoding} body of ${raw.length} bytes]`;
  }
}

function parseBody(raw: Buffer, encoding: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const decoded = decode(raw, encoding);
  if (typeof decoded === "string") return decoded;
  const text = decoded.toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function apiOf(method: string, path: string): StandInApi {
  if (method === "POST" && path.startsWith("/v1/messages")) return "anthropic";
  if (method === "POST" && path.startsWith("/v1/responses")) return "openai";
  return "other";
}

/** The longest `[stand-in-pace:MS]` a request may ask for. */
export const MAX_PACE_MS = 60_000;
/** Between two comment lines of a paced answer. */
const PACE_BEAT_MS = 500;

/**
 * A streamed answer as a model that thinks for a while before it says anything: a request holding
 * `[stand-in-pace:MS]` gets its stream's headers at once, an SSE comment line every PACE_BEAT_MS
 * for MS, then the scenario's answer. Bytes stream all along, the CLI has nothing to print.
 */
function paced(res: ServerResponse, body: Readonly<Record<string, unknown>>, answer: () => void): void {
  const ms = Math.min(MAX_PACE_MS, Number(/\[stand-in-pace:(\d{1,6})\]/.exec(JSON.stringify(body))?.[1] ?? 0));
  if (ms === 0 || body["stream"] !== true) {
    answer();
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // The answer's own writer sends its headers too: those are already out.
  res.writeHead = (() => res) as typeof res.writeHead;
  const beat = setInterval(() => res.write(": the stand-in is thinking\n\n"), PACE_BEAT_MS);
  res.once("close", () => clearInterval(beat));
  setTimeout(() => {
    clearInterval(beat);
    if (!res.destroyed) answer();
  }, ms);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startStandInModel(options: StandInOptions): Promise<StandInModel> {
  const { scenario: defaultScenario } = options;
  const requests: RecordedRequest[] = [];
  let answered = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? "GET";
    const [path = "/", query = ""] = (req.url ?? "/").split("?", 2);
    const raw = await readBody(req);
    if (raw === undefined) {
      sendJson(res, 413, { type: "error", error: { type: "request_too_large", message: `Request exceeds ${MAX_REQUEST_BYTES} bytes.` } });
      return;
    }
    let body: unknown;
    try {
      body = parseBody(raw, req.headers["content-encoding"]);
    } catch {
      body = `[undecodable ${String(req.headers["content-encoding"])} body of ${raw.length} bytes]`;
    }
    const api = apiOf(method, path);
    const credential = req.headers["x-api-key"] ?? /^Bearer\s+(\S+)/i.exec(req.headers["authorization"] ?? "")?.[1];
    const recorded: RecordedRequest = {
      method,
      path,
      query,
      headers: redactedHeaders(req),
      body,
      api,
      ...(typeof credential === "string" ? { credentialSha256: createHash("sha256").update(credential).digest("hex") } : {}),
    };
    requests.push(recorded);
    options.onRequest?.(recorded);

    if (method === "HEAD") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end();
      return;
    }
    if (method === "GET" && path === "/") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end(`stand-in model, scenario ${defaultScenario}\n`);
      return;
    }
    const json = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const now = new Date();
    // A request may name its own scenario (`[stand-in:hang]` anywhere in it), so one stand-in can
    // serve a service's many Runs, each as its test needs; still decided from the request alone.
    const named = /\[stand-in:([a-z_0-9.]+)\]/.exec(JSON.stringify(body) ?? "")?.[1];
    const scenario = named !== undefined && isScenario(named) ? named : options.scenario;
    if (api === "anthropic" && path === "/v1/messages/count_tokens") {
      const answer = anthropicAnswer(scenario, json, now);
      if (answer.kind === "error" && isStatusScenario(scenario)) sendJson(res, answer.status, answer.body, answer.headers);
      else sendJson(res, 200, { input_tokens: Math.max(1, Math.ceil(raw.length / 4)) });
      return;
    }
    if (api === "anthropic" && path === "/v1/messages") {
      const answer = anthropicAnswer(scenario, json, now);
      if (answer.kind === "hang") return;
      if (answer.kind === "error") sendJson(res, answer.status, answer.body, answer.headers);
      else paced(res, json, () => writeAnthropicMessage(res, answer, json, `msg_standin_${++answered}`));
      return;
    }
    if (api === "openai" && path === "/v1/responses") {
      const answer = openaiAnswer(scenario, json, now);
      if (answer.kind === "hang") return;
      if (answer.kind === "error") sendJson(res, answer.status, answer.body, answer.headers);
      else paced(res, json, () => writeOpenAIResponse(res, answer, json, `resp_standin_${++answered}`, now));
      return;
    }
    if (method === "GET" && path === "/v1/models") {
      sendJson(res, 200, { object: "list", data: [] });
      return;
    }
    const message = `The stand-in model does not serve ${method} ${path}.`;
    if (path.startsWith("/v1/responses") || path.startsWith("/v1/models")) {
      sendJson(res, 404, { error: { message, type: "invalid_request_error", param: null, code: "not_found" } });
    } else {
      sendJson(res, 404, { type: "error", error: { type: "not_found_error", message } });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { type: "error", error: { type: "api_error", message: String(error) } });
      else res.destroy();
    });
  });
  // A hung request must not keep a CLI's keep-alive socket from timing out on our side.
  server.keepAliveTimeout = 0;
  server.requestTimeout = 0;

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
