import { randomBytes } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startStandInModel } from "../../test/stand-in/index.js";
import {
  createEgressControlClient,
  createEgressProxy,
  EgressArgumentError,
  newRunToken,
  startEgressControlEndpoint,
  type EgressBreach,
  type EgressProxy,
} from "./index.js";

const SECRET = randomBytes(32).toString("base64url");
const KEY = "sk-ant-api03-control-test-key-0123456789abcdef";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxyAndSocket(lines: string[] = []): Promise<{ proxy: EgressProxy; socketPath: string }> {
  const standIn = await startStandInModel({ scenario: "plain" });
  cleanups.push(() => standIn.close());
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString()
          .split("\n")
          .filter((l) => l !== ""),
      );
      callback();
    },
  });
  const proxy = await createEgressProxy({ upstreams: { anthropic: standIn.url }, logger: pino(sink) });
  cleanups.push(() => proxy.close());
  const dir = await mkdtemp(join(tmpdir(), "egress-control-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const socketPath = join(dir, "control.sock");
  const endpoint = await startEgressControlEndpoint(proxy, { socketPath, secret: SECRET });
  cleanups.push(() => endpoint.close());
  return { proxy, socketPath };
}

function raw(socketPath: string, method: string, path: string, authorization?: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, method, path, headers: authorization === undefined ? {} : { authorization } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the egress proxy's control endpoint", () => {
  it("registers, meters and revokes a Run over a unix socket, and the token it hands out works at the proxy", async () => {
    const { proxy, socketPath } = await proxyAndSocket();
    expect((await stat(socketPath)).mode & 0o777).toBe(0o600);
    const client = createEgressControlClient({ socketPath, secret: SECRET });
    cleanups.push(async () => client.close());
    const { token } = await client.register({ runId: "remote", provider: "anthropic", credential: { kind: "api_key", value: KEY }, budget: { maxTurns: 5 } });
    expect(token).toMatch(/^agentcage-run-[A-Za-z0-9_-]{43}$/);
    const answer = await fetch(`${proxy.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": token, "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 10, stream: true, messages: [] }),
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(200);
    expect(await client.meter("remote")).toMatchObject({ runId: "remote", turns: 1, tokens: 38 });
    expect(await client.revoke("remote")).toMatchObject({ runId: "remote", turns: 1 });
    expect(await client.meter("remote")).toBeUndefined();
    expect(await client.revoke("remote")).toBeUndefined();
  });

  it("binds a Run's token to its network over the socket, refusing a bad range with 400 and an unknown Run with false", async () => {
    const { proxy, socketPath } = await proxyAndSocket();
    const client = createEgressControlClient({ socketPath, secret: SECRET });
    cleanups.push(async () => client.close());
    const { token } = await client.register({ runId: "to-bind", provider: "anthropic", credential: { kind: "api_key", value: KEY }, sources: [] });
    const call = (): Promise<number> =>
      fetch(`${proxy.url}/v1/messages/count_tokens`, { method: "POST", headers: { "x-api-key": token, "content-type": "application/json" }, body: "{}" }).then(
        (r) => r.status,
      );
    expect(await call()).toBe(403);
    expect(await client.bind("to-bind", ["127.0.0.1/32"])).toBe(true);
    expect(await call()).toBe(200);
    expect(await client.bind("nobody", ["127.0.0.1/32"])).toBe(false);
    await expect(client.bind("to-bind", ["300.1.1.1"])).rejects.toThrow(/HTTP 400.*sources\[0\] "300.1.1.1"/);
  });

  it("takes a token the caller made ahead: refused before it is registered, then the Run's, refused again once revoked; never a bad or a held one", async () => {
    const { proxy, socketPath } = await proxyAndSocket();
    const client = createEgressControlClient({ socketPath, secret: SECRET });
    cleanups.push(async () => client.close());
    const premade = newRunToken();
    const call = (token: string): Promise<number> =>
      fetch(`${proxy.url}/v1/messages/count_tokens`, { method: "POST", headers: { "x-api-key": token, "content-type": "application/json" }, body: "{}" }).then(
        (r) => r.status,
      );
    expect(await call(premade)).toBe(401);
    const { token } = await client.register({ runId: "premade", provider: "anthropic", credential: { kind: "api_key", value: KEY }, token: premade });
    expect(token).toBe(premade);
    expect(await call(premade)).toBe(200);
    await expect(client.register({ runId: "thief", provider: "anthropic", credential: { kind: "api_key", value: KEY }, token: premade })).rejects.toThrow(
      /"thief" is refused: its token is held by a live Run already/,
    );
    const wrong = `${premade.slice(0, -1)}!`;
    const attempt = client.register({ runId: "bad-token", provider: "anthropic", credential: { kind: "api_key", value: KEY }, token: wrong });
    await expect(attempt).rejects.toThrow(/token \(57 characters, not shown\) is not a per-Run token/);
    await expect(attempt).rejects.not.toThrow(wrong);
    await client.revoke("premade");
    expect(await call(premade)).toBe(401);
  });

  it("delivers a breach on its event stream", async () => {
    const { proxy, socketPath } = await proxyAndSocket();
    const client = createEgressControlClient({ socketPath, secret: SECRET });
    cleanups.push(async () => client.close());
    const breaches: EgressBreach[] = [];
    client.onBreach((b) => breaches.push(b));
    await client.eventsOpen();
    const { token } = await client.register({ runId: "spender", provider: "anthropic", credential: { kind: "api_key", value: KEY }, budget: { maxTokens: 5 } });
    const answer = await fetch(`${proxy.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": token, "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 10, stream: false, messages: [] }),
    });
    await answer.arrayBuffer();
    const deadline = Date.now() + 5_000;
    while (breaches.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(breaches).toEqual([expect.objectContaining({ runId: "spender", cap: "maxTokens", limit: 5, used: 38 })]);
  });

  it("refuses a request without the control secret, or with a per-Run token in its place", async () => {
    const { proxy, socketPath } = await proxyAndSocket();
    const { token } = await proxy.register({ runId: "victim", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    expect((await raw(socketPath, "GET", "/v1/runs/victim/meter")).status).toBe(401);
    expect((await raw(socketPath, "GET", "/v1/runs/victim/meter", `Bearer ${token}`)).status).toBe(401);
    expect((await raw(socketPath, "DELETE", "/v1/runs/victim", `Bearer ${SECRET}x`)).status).toBe(401);
    expect(await proxy.meter("victim")).toBeDefined();
    const wrongClient = createEgressControlClient({ socketPath, secret: `${SECRET}-wrong` });
    await expect(wrongClient.register({ runId: "x", provider: "anthropic", credential: { kind: "api_key", value: KEY } })).rejects.toThrow(
      /refused to register Run "x" \(HTTP 401\)/,
    );
  });

  it("answers a bad registration with 400 naming the parameter, and never echoes the credential", async () => {
    const { socketPath } = await proxyAndSocket();
    const client = createEgressControlClient({ socketPath, secret: SECRET });
    const attempt = client.register({ runId: "bad", provider: "gemini" as never, credential: { kind: "api_key", value: KEY } });
    await expect(attempt).rejects.toThrow(EgressArgumentError);
    await expect(attempt).rejects.toThrow('provider "gemini" must be one of "anthropic", "openai"');
    const spaced = await raw(
      socketPath,
      "POST",
      "/v1/runs",
      `Bearer ${SECRET}`,
      JSON.stringify({ runId: "r", provider: "anthropic", credential: { kind: "api_key", value: `${KEY} x` } }),
    );
    expect(spaced.status).toBe(400);
    expect(spaced.text).not.toContain(KEY);
    expect((await raw(socketPath, "POST", "/v1/runs", `Bearer ${SECRET}`, "not json")).status).toBe(400);
    expect((await raw(socketPath, "GET", "/v1/nothing", `Bearer ${SECRET}`)).status).toBe(404);
  });

  it("refuses a short secret at start, without quoting it", async () => {
    const proxy = await createEgressProxy({ logger: pino({ level: "silent" }) });
    cleanups.push(() => proxy.close());
    await expect(startEgressControlEndpoint(proxy, { secret: "short-secret" })).rejects.toThrow(
      "secret (12 characters, not shown) is shorter than 32 characters",
    );
    expect(() => createEgressControlClient({ secret: SECRET })).toThrow(/pass exactly one/);
  });

  it("listens on a TCP address when given one", async () => {
    const proxy = await createEgressProxy({ logger: pino({ level: "silent" }) });
    cleanups.push(() => proxy.close());
    const endpoint = await startEgressControlEndpoint(proxy, { host: "127.0.0.1", port: 0, secret: SECRET });
    cleanups.push(() => endpoint.close());
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = createEgressControlClient({ url: endpoint.url!, secret: SECRET });
    await client.register({ runId: "tcp", provider: "openai", credential: { kind: "api_key", value: KEY } });
    expect(await client.meter("tcp")).toMatchObject({ runId: "tcp", provider: "openai", turns: 0 });
  });
});
