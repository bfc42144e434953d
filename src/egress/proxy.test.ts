import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ANTHROPIC_USAGE, OPENAI_USAGE, startStandInModel, type Scenario, type StandInModel } from "../../test/stand-in/index.js";
import { sendLargeBody } from "../../test/support/large-body.js";
import { createEgressProxy, MAX_REQUEST_BODY_BYTES, type EgressBreach, type EgressProxy, type EgressProxyOptions } from "./index.js";

const CLAUDE_KEY = "sk-ant-api03-real-key-0123456789abcdef0123456789";
const OAUTH_TOKEN = "sk-ant-oat01-real-oauth-0123456789abcdef012345";
const OPENAI_KEY = "sk-proj-real-openai-key-0123456789abcdef0123";

/** The upstream a test points the proxy at: records each request's real headers and the bytes answered, and relays to the stand-in. */
type Capture = { readonly url: string; readonly seen: { headers: IncomingHttpHeaders; path: string; answered: Buffer }[]; close(): Promise<void> };

async function capturing(standIn: StandInModel): Promise<Capture> {
  const seen: Capture["seen"] = [];
  const server: Server = createServer((req, res) => {
    const record = { headers: req.headers, path: req.url ?? "", answered: Buffer.alloc(0) };
    seen.push(record);
    const relay = request(`${standIn.url}${req.url ?? "/"}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 500, up.headers);
      const chunks: Buffer[] = [];
      up.on("data", (c: Buffer) => chunks.push(c));
      up.on("end", () => (record.answered = Buffer.concat(chunks)));
      up.pipe(res);
    });
    relay.on("error", () => res.destroy());
    req.pipe(relay);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Setup = { proxy: EgressProxy; upstream: Capture; standIn: StandInModel; lines: string[]; breaches: EgressBreach[] };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(scenario: Scenario = "plain", options: EgressProxyOptions = {}): Promise<Setup> {
  const standIn = await startStandInModel({ scenario });
  cleanups.push(() => standIn.close());
  const upstream = await capturing(standIn);
  cleanups.push(() => upstream.close());
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString("utf8")
          .split("\n")
          .filter((l) => l !== ""),
      );
      callback();
    },
  });
  const breaches: EgressBreach[] = [];
  const proxy = await createEgressProxy({
    upstreams: { anthropic: upstream.url, openai: upstream.url },
    logger: pino({ level: "info" }, sink),
    onBreach: (b) => breaches.push(b),
    ...options,
  });
  cleanups.push(() => proxy.close());
  return { proxy, upstream, standIn, lines, breaches };
}

function messages(url: string, headers: Record<string, string>, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

function responses(url: string, token: string, body: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: "gpt-5", stream: true, input: "hi", ...body }),
  });
}

const claudeUsage = {
  inputTokens: ANTHROPIC_USAGE.input_tokens,
  outputTokens: ANTHROPIC_USAGE.output_tokens,
  cacheReadTokens: ANTHROPIC_USAGE.cache_read_input_tokens,
  cacheWriteTokens: ANTHROPIC_USAGE.cache_creation_input_tokens,
};
const codexUsage = {
  inputTokens: OPENAI_USAGE.input_tokens - OPENAI_USAGE.cached_tokens,
  outputTokens: OPENAI_USAGE.output_tokens,
  cacheReadTokens: OPENAI_USAGE.cached_tokens,
  cacheWriteTokens: 0,
};

function allHeaderText(headers: IncomingHttpHeaders): string {
  return JSON.stringify(headers);
}

describe("the egress proxy forwarding a Run's model calls", () => {
  it("swaps claude's per-Run token for the real API key and streams the answer through byte for byte", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "run-a", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const response = await messages(proxy.url, { "x-api-key": token });
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(upstream.seen).toHaveLength(1);
    const seen = upstream.seen[0]!;
    expect(seen.path).toBe("/v1/messages?beta=true");
    expect(seen.headers["x-api-key"]).toBe(CLAUDE_KEY);
    expect(seen.headers["authorization"]).toBeUndefined();
    expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    expect(allHeaderText(seen.headers)).not.toContain(token);
    expect(body.equals(seen.answered)).toBe(true);
    expect(body.length).toBeGreaterThan(200);
    const meter = await proxy.meter("run-a");
    expect(meter).toMatchObject({
      runId: "run-a",
      provider: "anthropic",
      turns: 1,
      requests: 1,
      refused: 0,
      usage: claudeUsage,
      models: ["claude-sonnet-4-5"],
      costFrom: "price_table",
    });
    expect(meter?.tokens).toBe(claudeUsage.inputTokens + claudeUsage.outputTokens);
    const expectedCost =
      (claudeUsage.inputTokens * 3 + claudeUsage.outputTokens * 15 + claudeUsage.cacheReadTokens * 0.3 + claudeUsage.cacheWriteTokens * 3.75) / 1e6;
    expect(meter?.costUsd).toBeCloseTo(expectedCost, 12);
  });

  it("meters the stand-in's answer under claude's default model at what claude itself charges for it", async () => {
    const { proxy } = await setUp();
    const { token } = await proxy.register({ runId: "run-default-model", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    await (await messages(proxy.url, { "x-api-key": token }, { model: "claude-opus-5-5" })).arrayBuffer();
    // claude 2.1.332's own total_cost_usd for this answer (the plain scenario's usage, under its default model).
    expect(await proxy.meter("run-default-model")).toMatchObject({ models: ["claude-opus-5-5"], costFrom: "price_table", costUsd: 0.007104 });
  });

  it("sends an OAuth token as Authorization: Bearer with the OAuth beta added to the client's betas", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "run-oauth", provider: "anthropic", credential: { kind: "oauth_token", value: OAUTH_TOKEN } });
    const response = await messages(proxy.url, { authorization: `Bearer ${token}`, "anthropic-beta": "claude-code-20250219" });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    const seen = upstream.seen[0]!;
    expect(seen.headers["authorization"]).toBe(`Bearer ${OAUTH_TOKEN}`);
    expect(seen.headers["x-api-key"]).toBeUndefined();
    expect(seen.headers["anthropic-beta"]).toBe("claude-code-20250219,oauth-2025-04-20");
  });

  it("swaps codex's bearer token for the real key and meters response.completed, cached input apart", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "run-codex", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const response = await responses(proxy.url, token);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    const seen = upstream.seen[0]!;
    expect(seen.path).toBe("/v1/responses");
    expect(seen.headers["authorization"]).toBe(`Bearer ${OPENAI_KEY}`);
    expect(body.equals(seen.answered)).toBe(true);
    expect(await proxy.meter("run-codex")).toMatchObject({ turns: 1, usage: codexUsage, models: ["gpt-5"] });
  });

  it("meters answers that are not streamed from the JSON body's usage", async () => {
    const { proxy } = await setUp();
    const claude = await proxy.register({ runId: "json-claude", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const codex = await proxy.register({ runId: "json-codex", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const a = await messages(proxy.url, { "x-api-key": claude.token }, { stream: false });
    expect(((await a.json()) as { usage: unknown }).usage).toEqual(ANTHROPIC_USAGE);
    const b = await responses(proxy.url, codex.token, { stream: false });
    await b.arrayBuffer();
    expect((await proxy.meter("json-claude"))?.usage).toEqual(claudeUsage);
    expect((await proxy.meter("json-codex"))?.usage).toEqual(codexUsage);
  });

  it("forwards count_tokens and codex's model list without counting them as turns", async () => {
    const { proxy, upstream } = await setUp();
    const claude = await proxy.register({ runId: "side-claude", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const codex = await proxy.register({ runId: "side-codex", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const count = await fetch(`${proxy.url}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      headers: { "x-api-key": claude.token, "content-type": "application/json" },
      body: "{}",
    });
    expect(count.status).toBe(200);
    const models = await fetch(`${proxy.url}/v1/models?client_version=1`, { headers: { authorization: `Bearer ${codex.token}` } });
    expect(await models.json()).toEqual({ object: "list", data: [] });
    expect(upstream.seen.map((s) => s.path)).toEqual(["/v1/messages/count_tokens?beta=true", "/v1/models?client_version=1"]);
    expect(await proxy.meter("side-claude")).toMatchObject({ turns: 0, requests: 1 });
    expect(await proxy.meter("side-codex")).toMatchObject({ turns: 0, requests: 1 });
  });

  it("passes each event on as it comes, without waiting for the end of the answer", async () => {
    let firstSeen: () => void = () => undefined;
    const clientHasFirst = new Promise<void>((resolve) => (firstSeen = resolve));
    const upstream = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: message_start\ndata: {"type":"message_start","message":{"model":"claude-haiku-4-5","usage":{"input_tokens":7,"output_tokens":1}}}\n\n');
      // The rest is sent only once the client holds the first event: a proxy that buffered would hang here.
      void clientHasFirst.then(() => {
        res.write('event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":9}}\n\n');
        res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
    const { proxy } = await setUp("plain", { upstreams: { anthropic: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } });
    const { token } = await proxy.register({ runId: "live", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const response = await messages(proxy.url, { "x-api-key": token });
    const reader = response.body!.getReader();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
      if (text.includes("message_start")) firstSeen();
    }
    expect(text).toContain("message_stop");
    expect((await proxy.meter("live"))?.usage).toEqual({ inputTokens: 7, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("reads no more of an answer than the agent's socket takes while the agent does not read, then passes it all on", async () => {
    // The upstream writes as fast as it is read: a proxy that did not pause it for the agent would read all of it.
    const event = Buffer.from(`event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", delta: { text: "x".repeat(16_000) } })}\n\n`);
    const total = 64 * 1024 * 1024;
    let written = 0;
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const pump = (): void => {
        while (written < total) {
          written += event.length;
          if (!res.write(event)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          upstream.closeAllConnections();
          upstream.close(() => resolve());
        }),
    );
    const { proxy } = await setUp("plain", { upstreams: { anthropic: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } });
    const { token } = await proxy.register({ runId: "paused", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        `${proxy.url}/v1/messages?beta=true`,
        { method: "POST", headers: { "x-api-key": token, "content-type": "application/json" } },
        resolve,
      );
      req.on("error", reject);
      req.end(JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 1, stream: true, messages: [] }));
    });
    answer.pause();
    // Until what the upstream wrote stops growing: the sockets' buffers are full.
    for (let before = -1; before !== written; ) {
      before = written;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(written).toBeLessThan(total / 2);
    let received = 0;
    answer.on("data", (chunk: Buffer) => (received += chunk.length));
    answer.resume();
    await new Promise((resolve) => answer.once("end", resolve));
    expect(received).toBe(written);
  });

  it("answers claude's HEAD probe itself, with no token and nothing forwarded", async () => {
    const { proxy, upstream } = await setUp();
    expect((await fetch(`${proxy.url}/`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${proxy.url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`${proxy.url}/api/hello`)).status).toBe(401);
    expect(upstream.seen).toEqual([]);
  });

  it("passes the provider's own error through as it is, and meters nothing for it", async () => {
    const { proxy } = await setUp("status_429");
    const { token } = await proxy.register({ runId: "limited", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const response = await messages(proxy.url, { "x-api-key": token });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("30");
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
    expect(await proxy.meter("limited")).toMatchObject({ turns: 1, tokens: 0 });
  });

  it("answers 502 with a JSON error when the provider cannot be reached", async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    const { proxy } = await setUp("plain", { upstreams: { anthropic: `http://127.0.0.1:${port}` } });
    const { token } = await proxy.register({ runId: "unreachable", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const response = await messages(proxy.url, { "x-api-key": token });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("upstream_unreachable");
    expect(body.error.message).toContain(`127.0.0.1:${port}`);
  });
});

describe("the egress proxy refusing", () => {
  it("refuses a missing, unknown or revoked token with 401 and forwards nothing", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "gone", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const missing = await messages(proxy.url, {});
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("missing_token");
    const unknown = await messages(proxy.url, { "x-api-key": "agentcage-run-not-a-real-token" });
    expect(unknown.status).toBe(401);
    const unknownBody = (await unknown.json()) as { type: string; error: { type: string; code: string; message: string } };
    expect(unknownBody).toMatchObject({ type: "error", error: { type: "authentication_error", code: "unknown_token" } });
    expect(unknownBody.error.message).toMatch(/unknown or was revoked/);
    const final = await proxy.revoke("gone");
    expect(final).toMatchObject({ runId: "gone", turns: 0 });
    const revoked = await messages(proxy.url, { "x-api-key": token });
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("x-should-retry")).toBe("false");
    const asTheRealKey = await messages(proxy.url, { "x-api-key": CLAUDE_KEY });
    expect(asTheRealKey.status).toBe(401);
    expect(upstream.seen).toEqual([]);
    expect(await proxy.meter("gone")).toBeUndefined();
    expect(await proxy.revoke("gone")).toBeUndefined();
  });

  it("refuses every path and method off the Run's CLI's allowlist with 403 and forwards nothing", async () => {
    const { proxy, upstream } = await setUp();
    const claude = await proxy.register({ runId: "paths-claude", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const codex = await proxy.register({ runId: "paths-codex", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const tries: [string, string, Record<string, string>][] = [
      ["POST", "/v1/responses", { "x-api-key": claude.token }],
      ["GET", "/v1/models", { "x-api-key": claude.token }],
      ["GET", "/v1/messages", { "x-api-key": claude.token }],
      ["POST", "/v1/messages/batches", { "x-api-key": claude.token }],
      ["POST", "/v1/messages/../files", { "x-api-key": claude.token }],
      ["POST", "/v1/files", { "x-api-key": claude.token }],
      ["POST", "/api/oauth/usage", { "x-api-key": claude.token }],
      ["POST", "/v1/messages", { authorization: `Bearer ${codex.token}` }],
      ["POST", "/v1/chat/completions", { authorization: `Bearer ${codex.token}` }],
      ["DELETE", "/v1/responses", { authorization: `Bearer ${codex.token}` }],
    ];
    for (const [method, path, headers] of tries) {
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${proxy.url}${path}`, { method, headers: { ...headers, "content-type": "application/json" } }, (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end(method === "GET" ? undefined : "{}");
      });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((JSON.parse(response.body) as { error: { code: string } }).error.code).toBe("path_not_allowed");
    }
    expect(upstream.seen).toEqual([]);
    expect(await proxy.meter("paths-claude")).toMatchObject({ refused: 7, turns: 0 });
  });

  it.each(["anthropic", "openai"] as const)("cuts a %s request body past MAX_REQUEST_BODY_BYTES with 413 and stops forwarding it", async (provider) => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "big", provider, credential: { kind: "api_key", value: CLAUDE_KEY } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${proxy.url}/v1/${provider === "anthropic" ? "messages" : "responses"}`,
        { method: "POST", headers: { "x-api-key": token, "content-type": "application/json" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      sendLargeBody(req, MAX_REQUEST_BODY_BYTES + 1);
    });
    expect(status).toBe(413);
    // A model call is read whole first (to check its tools and its bounds): nothing of it leaves.
    expect(upstream.seen.length).toBe(0);
    expect((await proxy.meter("big"))?.refused).toBe(1);
  });

  it("refuses a claude call that asks for a beta letting the provider reach other hosts (MCP connector, web fetch)", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "betas", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    for (const beta of ["mcp-client-2025-04-04", "claude-code-20250219, web-fetch-2025-09-10"]) {
      const response = await messages(proxy.url, { "x-api-key": token, "anthropic-beta": beta });
      expect(response.status, beta).toBe(403);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("feature_not_allowed");
      expect(body.error.message).toMatch(/anthropic-beta "(mcp-client|web-fetch)-/);
    }
    expect(upstream.seen).toEqual([]);
    expect((await messages(proxy.url, { "x-api-key": token, "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14" })).status).toBe(200);
    expect(await proxy.meter("betas")).toMatchObject({ turns: 1, refused: 2 });
  });

  it("refuses a codex call naming a remote MCP tool, which the provider would call for the Run, and forwards nothing", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "mcp", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const refused = await responses(proxy.url, token, {
      tools: [
        { type: "function", name: "shell" },
        { type: "mcp", server_label: "x", server_url: "https://example.com/sse" },
      ],
    });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "feature_not_allowed", message: expect.stringContaining('a tool of type "mcp" is refused') });
    const unreadable = await fetch(`${proxy.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-encoding": "zstd" },
      body: "x",
    });
    expect(unreadable.status).toBe(403);
    expect(((await unreadable.json()) as { error: { message: string } }).error.message).toContain('content-encoding "zstd" cannot be inspected');
    expect(upstream.seen).toEqual([]);
    const allowed = await responses(proxy.url, token, { tools: [{ type: "function", name: "shell" }, { type: "web_search" }] });
    expect(allowed.status).toBe(200);
    await allowed.arrayBuffer();
    expect(upstream.seen).toHaveLength(1);
    expect(await proxy.meter("mcp")).toMatchObject({ turns: 1, refused: 2 });
  });

  it("refuses to act as a plain forward proxy for another host", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "forward", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: proxy.port, method: "GET", path: "http://example.com/v1/messages", headers: { "x-api-key": token } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(405);
    expect(upstream.seen).toEqual([]);
  });

  it("refuses a websocket upgrade", async () => {
    const { proxy } = await setUp();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: proxy.port, path: "/v1/responses", headers: { connection: "Upgrade", upgrade: "websocket" } });
      req.on("response", (res) => resolve(res.statusCode ?? 0));
      req.on("upgrade", () => reject(new Error("upgraded")));
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(405);
  });
});

describe("the egress proxy's budgets", () => {
  it("refuses the call after maxTurns (claude: 402; codex: 400), forwards nothing for it and reports the breach once", async () => {
    const { proxy, upstream, breaches } = await setUp();
    const { token } = await proxy.register({
      runId: "turns",
      provider: "anthropic",
      credential: { kind: "api_key", value: CLAUDE_KEY },
      budget: { maxTurns: 2 },
    });
    for (let i = 0; i < 2; i++) expect((await (await messages(proxy.url, { "x-api-key": token })).arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect(breaches).toEqual([]);
    const refused = await messages(proxy.url, { "x-api-key": token });
    expect(refused.status).toBe(402);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("budget_exceeded");
    expect(body.error.message).toContain("maxTurns (3 model calls of 2 model calls)");
    expect((await messages(proxy.url, { "x-api-key": token })).status).toBe(402);
    expect(upstream.seen).toHaveLength(2);
    expect(breaches).toEqual([expect.objectContaining({ runId: "turns", cap: "maxTurns", limit: 2, used: 3 })]);
    expect(await proxy.meter("turns")).toMatchObject({ turns: 2, refused: 2, breach: { cap: "maxTurns" } });
  });

  it("reports a maxTokens breach when the answer that passes it ends, and refuses the next call", async () => {
    const { proxy, upstream, breaches } = await setUp();
    const { token } = await proxy.register({
      runId: "tokens",
      provider: "openai",
      credential: { kind: "api_key", value: OPENAI_KEY },
      budget: { maxTokens: 10 },
    });
    const first = await responses(proxy.url, token);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    await until(() => breaches.length === 1);
    expect(breaches[0]).toMatchObject({ runId: "tokens", cap: "maxTokens", limit: 10, used: codexUsage.inputTokens + codexUsage.outputTokens });
    expect((await responses(proxy.url, token)).status).toBe(400);
    expect(upstream.seen).toHaveLength(1);
  });

  it("holds maxCostUsd against the price table", async () => {
    const { proxy, breaches } = await setUp();
    const { token } = await proxy.register({
      runId: "cost",
      provider: "anthropic",
      credential: { kind: "api_key", value: CLAUDE_KEY },
      budget: { maxCostUsd: 0.000001 },
    });
    await (await messages(proxy.url, { "x-api-key": token }, { model: "claude-haiku-4-5" })).arrayBuffer();
    await until(() => breaches.length === 1);
    expect(breaches[0]).toMatchObject({ cap: "maxCostUsd", limit: 0.000001 });
    expect((await messages(proxy.url, { "x-api-key": token })).status).toBe(402);
  });

  it.each([
    { cap: "maxTokens", budget: { maxTokens: 100 } },
    { cap: "maxCostUsd", budget: { maxCostUsd: 0.015 } },
  ] as const)("passes $cap by one call's worth at most when 40 calls come at once near it", async ({ cap, budget }) => {
    const { proxy, upstream, breaches } = await setUp();
    const { token } = await proxy.register({ runId: `concurrent-${cap}`, provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY }, budget });
    // A body as large as a real one's share of cached tokens: each byte may be a token.
    const body = { messages: [{ role: "user", content: "x".repeat(5_000) }] };
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const answer = await messages(proxy.url, { "x-api-key": token }, body);
        await answer.arrayBuffer();
        return answer.status;
      }),
    );
    const meter = await proxy.meter(`concurrent-${cap}`);
    const forwarded = statuses.filter((status) => status === 200).length;
    expect(forwarded).toBe(upstream.seen.length);
    expect(statuses.filter((status) => status === 402)).toHaveLength(40 - forwarded);
    expect(breaches).toHaveLength(1);
    // What one call spends, from the meter itself: the cap, plus one call's worth, and no more.
    const used = cap === "maxTokens" ? (meter?.tokens ?? 0) : (meter?.costUsd ?? 0);
    const perCall = used / forwarded;
    const limit = cap === "maxTokens" ? budget.maxTokens : budget.maxCostUsd;
    expect(used).toBeGreaterThan(limit ?? 0);
    expect(used).toBeLessThanOrEqual((limit ?? 0) + perCall + 1e-12);
  });

  it("keeps each Run's meter and budget its own: a second Run's token neither spends nor reads the first's", async () => {
    const { proxy, breaches } = await setUp();
    const a = await proxy.register({ runId: "first", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY }, budget: { maxTurns: 1 } });
    const b = await proxy.register({ runId: "second", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY }, budget: { maxTurns: 3 } });
    for (let i = 0; i < 3; i++) expect((await messages(proxy.url, { "x-api-key": b.token })).status).toBe(200);
    expect(await proxy.meter("first")).toMatchObject({ turns: 0, tokens: 0 });
    expect(await proxy.meter("second")).toMatchObject({ turns: 3 });
    expect((await messages(proxy.url, { "x-api-key": a.token })).status).toBe(200);
    expect((await messages(proxy.url, { "x-api-key": a.token })).status).toBe(402);
    expect(breaches.map((x) => x.runId)).toEqual(["first"]);
    // The agents' port serves no meter: there is nothing there to read another Run's usage from.
    for (const path of ["/v1/runs/first/meter", "/meter", "/v1/runs/first"]) {
      expect((await fetch(`${proxy.url}${path}`, { headers: { "x-api-key": b.token } })).status).toBe(403);
    }
  });

  it("refuses registering a Run id twice, and a bad budget, naming the parameter", async () => {
    const { proxy } = await setUp();
    await proxy.register({ runId: "twice", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    await expect(proxy.register({ runId: "twice", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } })).rejects.toThrow(
      /^runId "twice" is already registered/,
    );
    await expect(
      proxy.register({ runId: "x", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY }, budget: { maxTurns: 0 } }),
    ).rejects.toThrow(/^budget\.maxTurns 0 must be a positive whole number/);
  });
});

/** A count_tokens call from `localAddress` (127.0.0.0/8 is all loopback here): its status and refusal code. */
function countTokensFrom(proxy: EgressProxy, token: string, localAddress: string): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: proxy.port,
        localAddress,
        method: "POST",
        path: "/v1/messages/count_tokens",
        headers: { "x-api-key": token, "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, ...(res.statusCode === 200 ? {} : { code: (JSON.parse(text) as { error: { code: string } }).error.code }) }),
        );
      },
    );
    req.on("error", reject);
    req.end("{}");
  });
}

describe("the egress proxy binding a token to its Run's network", () => {
  it("refuses a token presented from outside the sources it was registered with, and takes it from inside", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({
      runId: "bound",
      provider: "anthropic",
      credential: { kind: "api_key", value: CLAUDE_KEY },
      sources: ["127.0.0.2/32"],
    });
    expect(await countTokensFrom(proxy, token, "127.0.0.1")).toEqual({ status: 403, code: "token_elsewhere" });
    expect(upstream.seen).toHaveLength(0);
    expect(await countTokensFrom(proxy, token, "127.0.0.2")).toEqual({ status: 200 });
    expect(await proxy.meter("bound")).toMatchObject({ refused: 1, requests: 1 });
  });

  it("takes a token registered with no sources from nowhere until bind names its network", async () => {
    const { proxy } = await setUp();
    const { token } = await proxy.register({ runId: "late", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY }, sources: [] });
    expect(await countTokensFrom(proxy, token, "127.0.0.1")).toEqual({ status: 403, code: "token_elsewhere" });
    expect(await proxy.bind("late", ["127.0.0.0/30"])).toBe(true);
    expect(await countTokensFrom(proxy, token, "127.0.0.1")).toEqual({ status: 200 });
    expect(await countTokensFrom(proxy, token, "127.0.0.9")).toEqual({ status: 403, code: "token_elsewhere" });
    expect(await proxy.bind("unknown", ["127.0.0.1"])).toBe(false);
    await expect(proxy.bind("late", ["not-an-address"])).rejects.toThrow('sources[0] "not-an-address" is not an address or CIDR range');
    await expect(
      proxy.register({ runId: "bad", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY }, sources: ["10.0.0.0/33"] }),
    ).rejects.toThrow(/^sources\[0\] "10.0.0.0\/33"/);
  });
});

describe("the egress proxy's revoke", () => {
  it("cuts a model call in flight and the Run's token dies with it", async () => {
    const { proxy, upstream } = await setUp("hang");
    const { token } = await proxy.register({ runId: "cut", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const pending = messages(proxy.url, { "x-api-key": token }).then(
      (r) => r.status,
      () => "cut",
    );
    await until(() => upstream.seen.length === 1);
    expect(await proxy.revoke("cut")).toMatchObject({ runId: "cut", turns: 1 });
    expect(await pending).toBe("cut");
  });

  it("forwards nothing of a call that was waiting on its Run's budget when the Run is revoked", async () => {
    const { proxy, upstream } = await setUp("hang");
    const { token } = await proxy.register({
      runId: "waiting",
      provider: "anthropic",
      credential: { kind: "api_key", value: CLAUDE_KEY },
      budget: { maxTokens: 100 },
    });
    // Each call could spend past the cap alone: the second waits until the first settles.
    const body = { messages: [{ role: "user", content: "x".repeat(5_000) }] };
    const first = messages(proxy.url, { "x-api-key": token }, body).then(
      (r) => r.status,
      () => "cut",
    );
    await until(() => upstream.seen.length === 1);
    const second = messages(proxy.url, { "x-api-key": token }, body).then(
      async (r) => ({ status: r.status, body: await r.text() }),
      () => "cut",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.revoke("waiting");
    expect(await first).toBe("cut");
    expect(await second).toMatchObject({ status: 401, body: expect.stringContaining("revoked") });
    expect(upstream.seen).toHaveLength(1);
  });

  it("refuses a codex call whose Run is revoked while its body is still arriving", async () => {
    const { proxy, upstream } = await setUp();
    const { token } = await proxy.register({ runId: "late", provider: "openai", credential: { kind: "api_key", value: OPENAI_KEY } });
    const status = new Promise<number>((resolve, reject) => {
      const req = request(
        `${proxy.url}/v1/responses`,
        { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write('{"model":"gpt-5","stream":true,');
      setTimeout(() => {
        void proxy.revoke("late").then(() => req.end('"input":"hi"}'));
      }, 50);
    });
    expect(await status).toBe(401);
    expect(upstream.seen).toEqual([]);
  });
});

describe("the egress proxy's log", () => {
  it("writes one line per request with the Run, host, path, status, bytes, tokens and duration, and never a secret", async () => {
    const { proxy, lines, upstream } = await setUp();
    const claude = await proxy.register({ runId: "logged", provider: "anthropic", credential: { kind: "api_key", value: CLAUDE_KEY } });
    const codex = await proxy.register({ runId: "logged-codex", provider: "openai", credential: { kind: "oauth_token", value: OPENAI_KEY } });
    await (await messages(proxy.url, { "x-api-key": claude.token })).arrayBuffer();
    await (await responses(proxy.url, codex.token)).arrayBuffer();
    await (await messages(proxy.url, { "x-api-key": "wrong" })).arrayBuffer();
    // A path holding the token itself is logged masked.
    await (await fetch(`${proxy.url}/v1/${claude.token}`, { headers: { "x-api-key": claude.token } })).arrayBuffer();
    await proxy.revoke("logged");
    await until(() => lines.filter((l) => l.includes('"msg":"egress')).length >= 5);
    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l["msg"] === "egress" || l["msg"] === "egress refused");
    expect(requests).toHaveLength(4);
    const upstreamHost = new URL(upstream.url).host;
    expect(requests[0]).toMatchObject({
      runId: "logged",
      method: "POST",
      host: upstreamHost,
      path: "/v1/messages",
      status: 200,
      tokens: claudeUsage,
    });
    expect(requests[0]?.["bytesIn"]).toBeGreaterThan(50);
    expect(requests[0]?.["bytesOut"]).toBeGreaterThan(200);
    expect(typeof requests[0]?.["durationMs"]).toBe("number");
    expect(requests[1]).toMatchObject({ runId: "logged-codex", path: "/v1/responses", status: 200, tokens: codexUsage });
    expect(requests[2]).toMatchObject({ status: 401, refused: "unknown_token" });
    expect(requests[3]).toMatchObject({ runId: "logged", status: 403, refused: "path_not_allowed", path: "/v1/[REDACTED]" });
    const all = lines.join("\n");
    for (const secret of [CLAUDE_KEY, OPENAI_KEY, claude.token, codex.token, Buffer.from(CLAUDE_KEY).toString("base64")]) {
      expect(all).not.toContain(secret);
    }
  });
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
