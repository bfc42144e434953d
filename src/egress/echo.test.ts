// An upstream that echoes the credential it received (a gateway's error page, a debugging proxy the
// Operator points at) must hand none of it back to the agent, in any spelling the masker knows:
// error bodies, headers, streamed deltas cut mid-key, compressed bodies, base64 and hex.

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync, brotliCompressSync } from "node:zlib";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createMasker } from "../redact/index.js";
import { createEgressProxy, type EgressProxy } from "./index.js";

const CLAUDE_KEY = "sk-ant-api03-echoed-real-key-0123456789abcdef";
const OAUTH_TOKEN = "sk-ant-oat01-echoed-oauth-0123456789abcdef01";
const OPENAI_KEY = "sk-proj-echoed-openai-key-0123456789abcdef01";

/** The secret the upstream received, however it was sent. */
function received(headers: IncomingHttpHeaders): string {
  const key = headers["x-api-key"];
  if (typeof key === "string") return key;
  return String(headers["authorization"] ?? "").replace(/^Bearer /, "");
}

/** Answers each request by echoing the credential in the way its x-echo header names. */
function echoingUpstream(): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    const secret = received(req.headers);
    const mode = String(req.headers["x-echo"] ?? "body");
    const json = (status: number, body: unknown, extra: Record<string, string> = {}): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...extra });
      res.end(text);
    };
    switch (mode) {
      case "error-body":
        return json(401, { type: "error", error: { type: "authentication_error", message: `invalid x-api-key: ${secret}` } });
      case "header":
        return json(200, { ok: true }, { "x-debug-credential": secret, "www-authenticate": `Bearer realm="${secret}"` });
      case "base64":
        return json(400, { error: { message: `token ${Buffer.from(secret).toString("base64")}` } });
      case "hex":
        return json(400, { error: { message: `token ${Buffer.from(secret).toString("hex")}` } });
      case "gzip": {
        const body = gzipSync(JSON.stringify({ error: { message: `you sent ${secret}` } }));
        res.writeHead(400, { "content-type": "application/json", "content-encoding": "gzip", "content-length": body.length });
        return res.end(body);
      }
      case "br": {
        const body = brotliCompressSync(`event: content_block_delta\ndata: {"delta":{"text":"${secret}"}}\n\n`);
        res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "br" });
        return res.end(body);
      }
      case "zstd":
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "zstd" });
        return res.end(Buffer.from(secret));
      case "sse": {
        // The key cut in two writes, each flushed on its own, inside one text delta.
        res.writeHead(200, { "content-type": "text/event-stream" });
        const half = Math.floor(secret.length / 2);
        res.write(`event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"type":"text_delta","text":"the key is ${secret.slice(0, half)}`);
        setTimeout(() => {
          res.write(`${secret.slice(half)}"}}\n\n`);
          res.end("event: message_stop\ndata: {}\n\n");
        }, 50);
        return;
      }
      default:
        return json(500, { echo: secret });
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server })),
  );
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(): Promise<{ proxy: EgressProxy; seen: IncomingHttpHeaders[] }> {
  const upstream = await echoingUpstream();
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        upstream.server.close(() => resolve());
        upstream.server.closeAllConnections();
      }),
  );
  const proxy = await createEgressProxy({ upstreams: { anthropic: upstream.url, openai: upstream.url }, logger: pino({ level: "silent" }) });
  cleanups.push(() => proxy.close());
  return { proxy, seen: upstream.seen };
}

/** Everything the agent got back: the status line's headers, raw, and the body bytes as they arrived. */
async function call(
  proxy: EgressProxy,
  provider: "anthropic" | "openai",
  token: string,
  mode: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const path = provider === "anthropic" ? "/v1/messages" : "/v1/responses";
  const auth = provider === "anthropic" ? { "x-api-key": token } : { authorization: `Bearer ${token}` };
  const response = await fetch(`${proxy.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-echo": mode, ...auth, ...extra },
    body: JSON.stringify({ model: "m", max_tokens: 10, messages: [] }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function everySpellingOf(secret: string): (text: string) => boolean {
  const masker = createMasker([secret]);
  return (text) => masker.mask(text) !== text || text.includes(secret);
}

const MODES = ["error-body", "header", "base64", "hex", "gzip", "br", "sse", "echo"] as const;
const CREDENTIALS = [
  { provider: "anthropic", kind: "api_key", value: CLAUDE_KEY },
  { provider: "anthropic", kind: "oauth_token", value: OAUTH_TOKEN },
  { provider: "openai", kind: "api_key", value: OPENAI_KEY },
] as const;

describe("the egress proxy's answers to an agent", () => {
  it.each(CREDENTIALS.flatMap((credential) => MODES.map((mode) => ({ ...credential, mode }))))(
    "hold none of $provider's $kind when the upstream echoes it ($mode)",
    async ({ provider, kind, value, mode }) => {
      const { proxy, seen } = await setUp();
      const { token } = await proxy.register({ runId: "echo-run", provider, credential: { kind, value } });
      const answer = await call(proxy, provider, token, mode);
      // The upstream really got the key, and really answered with it.
      expect(received(seen[0] ?? {})).toBe(value);
      const shows = everySpellingOf(value);
      const headerText = [...answer.headers.entries()].map(([name, v]) => `${name}: ${v}`).join("\n");
      expect(shows(headerText)).toBe(false);
      expect(shows(answer.text)).toBe(false);
      expect(answer.text).toContain(mode === "header" ? "ok" : "[REDACTED]");
    },
  );

  it("decodes a compressed answer and passes it on plain, without its content-encoding", async () => {
    const { proxy } = await setUp();
    const { token } = await proxy.register({ runId: "gzip-run", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const answer = await call(proxy, "anthropic", token, "gzip");
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-encoding")).toBeNull();
    expect(JSON.parse(answer.text)).toEqual({ error: { message: "you sent [REDACTED]" } });
  });

  it("refuses an answer in an encoding it cannot decode, passing none of it on", async () => {
    const { proxy } = await setUp();
    const { token } = await proxy.register({ runId: "zstd-run", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const answer = await call(proxy, "anthropic", token, "zstd");
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: "upstream_encoding" });
    expect(JSON.parse(answer.text).error.message).toContain('"zstd"');
    expect(answer.text).not.toContain(CLAUDE_KEY);
  });

  it("never forwards the agent's choice of the organisation or project the real key bills", async () => {
    const { proxy, seen } = await setUp();
    const { token } = await proxy.register({ runId: "org-run", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    await call(proxy, "openai", token, "header", { "openai-organization": "org-attacker", "openai-project": "proj_attacker" });
    expect(seen[0]?.["openai-organization"]).toBeUndefined();
    expect(seen[0]?.["openai-project"]).toBeUndefined();
  });
});
