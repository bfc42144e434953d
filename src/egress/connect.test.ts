import { request } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createEgressProxy, type EgressProxy, type EgressProxyOptions } from "./index.js";

const KEY = "sk-ant-api03-connect-test-key-0123456789abcdef";

type Tunnel = { readonly status: number; readonly socket?: Socket; readonly body: string };

function connectThrough(proxy: EgressProxy, target: string, authorization?: string): Promise<Tunnel> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port: proxy.port,
      method: "CONNECT",
      path: target,
      headers: authorization === undefined ? {} : { "proxy-authorization": authorization },
    });
    req.on("connect", (res, socket, head: Buffer) => {
      if (res.statusCode === 200) resolve({ status: 200, socket, body: "" });
      else {
        let body = head.toString();
        socket.on("data", (c: Buffer) => (body += c.toString()));
        socket.on("close", () => resolve({ status: res.statusCode ?? 0, body }));
        socket.on("error", () => undefined);
      }
    });
    req.on("error", reject);
    req.end();
  });
}

function echo(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = "";
    socket.on("data", (c: Buffer) => {
      got += c.toString();
      if (got.length >= text.length) resolve(got);
    });
    socket.on("error", reject);
    socket.write(text);
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function echoServer(): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

async function proxyWith(options: EgressProxyOptions, lines: string[] = []): Promise<EgressProxy> {
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
  const proxy = await createEgressProxy({ logger: pino(sink), ...options });
  cleanups.push(() => proxy.close());
  return proxy;
}

describe("the egress proxy's allowlist mode", () => {
  it("tunnels CONNECT to a listed host:port for a Run's bearer token, bytes unchanged both ways", async () => {
    const target = await echoServer();
    const lines: string[] = [];
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${target.port}`] }, lines);
    const { token } = await proxy.register({ runId: "tunnel", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const tunnel = await connectThrough(proxy, `127.0.0.1:${target.port}`, `Bearer ${token}`);
    expect(tunnel.status).toBe(200);
    const text = "hello through the tunnel \u00e9\u65e5";
    expect(await echo(tunnel.socket!, text)).toBe(text);
    tunnel.socket!.destroy();
    await until(() => lines.some((l) => l.includes('"method":"CONNECT"')));
    const line = JSON.parse(lines.find((l) => l.includes('"method":"CONNECT"'))!) as Record<string, unknown>;
    expect(line).toMatchObject({
      runId: "tunnel",
      host: `127.0.0.1:${target.port}`,
      status: 200,
      bytesIn: Buffer.byteLength(text),
      bytesOut: Buffer.byteLength(text),
    });
    expect(lines.join("\n")).not.toContain(token);
  });

  it("takes the token as the password of Basic proxy credentials, so HTTPS_PROXY=http://run:<token>@proxy works", async () => {
    const target = await echoServer();
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${target.port}`] });
    const { token } = await proxy.register({ runId: "basic", provider: "openai", credential: { kind: "api_key", value: KEY } });
    const tunnel = await connectThrough(proxy, `127.0.0.1:${target.port}`, `Basic ${Buffer.from(`run:${token}`).toString("base64")}`);
    expect(tunnel.status).toBe(200);
    expect(await echo(tunnel.socket!, "ping")).toBe("ping");
    tunnel.socket!.destroy();
  });

  it("refuses an unlisted host:port with 403, and opens no connection to it", async () => {
    const listed = await echoServer();
    const other = await echoServer();
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${listed.port}`] });
    const { token } = await proxy.register({ runId: "unlisted", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    for (const target of [`127.0.0.1:${other.port}`, `localhost:${listed.port}`, `127.0.0.1:${listed.port}0`, "127.0.0.1"]) {
      const tunnel = await connectThrough(proxy, target, `Bearer ${token}`);
      expect(tunnel.status, target).toBe(403);
      expect(tunnel.body).toContain("connect_target_not_listed");
    }
    expect(other.connections()).toBe(0);
    expect(listed.connections()).toBe(0);
  });

  it("asks for proxy credentials (407) without a token, with an unknown one and with a revoked one", async () => {
    const target = await echoServer();
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${target.port}`] });
    const { token } = await proxy.register({ runId: "auth", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    expect((await connectThrough(proxy, `127.0.0.1:${target.port}`)).status).toBe(407);
    expect((await connectThrough(proxy, `127.0.0.1:${target.port}`, "Bearer agentcage-run-nope")).status).toBe(407);
    await proxy.revoke("auth");
    expect((await connectThrough(proxy, `127.0.0.1:${target.port}`, `Bearer ${token}`)).status).toBe(407);
    expect(target.connections()).toBe(0);
  });

  it("cuts an open tunnel when its Run is revoked", async () => {
    const target = await echoServer();
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${target.port}`] });
    const { token } = await proxy.register({ runId: "cut", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const tunnel = await connectThrough(proxy, `127.0.0.1:${target.port}`, `Bearer ${token}`);
    expect(await echo(tunnel.socket!, "before")).toBe("before");
    const closed = new Promise<void>((resolve) => tunnel.socket!.on("close", () => resolve()));
    await proxy.revoke("cut");
    await closed;
  });

  it("refuses every CONNECT with 405 in the model-only mode", async () => {
    const target = await echoServer();
    const proxy = await proxyWith({});
    const { token } = await proxy.register({ runId: "model-only", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const tunnel = await connectThrough(proxy, `127.0.0.1:${target.port}`, `Bearer ${token}`);
    expect(tunnel.status).toBe(405);
    expect(tunnel.body).toContain("connect_not_allowed");
    expect(target.connections()).toBe(0);
  });

  it("holds a Run registered with its own allowlist to that list, not the proxy's; [] is model-only for that Run", async () => {
    const mine = await echoServer();
    const theirs = await echoServer();
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${theirs.port}`] });
    const own = await proxy.register({
      runId: "own-list",
      provider: "anthropic",
      credential: { kind: "api_key", value: KEY },
      allowlist: [`127.0.0.1:${mine.port}`],
    });
    const none = await proxy.register({ runId: "no-list", provider: "anthropic", credential: { kind: "api_key", value: KEY }, allowlist: [] });
    const through = await connectThrough(proxy, `127.0.0.1:${mine.port}`, `Bearer ${own.token}`);
    expect(through.status).toBe(200);
    through.socket!.destroy();
    const other = await connectThrough(proxy, `127.0.0.1:${theirs.port}`, `Bearer ${own.token}`);
    expect([other.status, other.body]).toEqual([403, expect.stringContaining("this Run's allowlist")]);
    // Another Run's list is not this one's.
    const borrowed = await connectThrough(proxy, `127.0.0.1:${mine.port}`, `Bearer ${none.token}`);
    expect([borrowed.status, borrowed.body]).toEqual([405, expect.stringContaining("this Run's policy is model-only")]);
    expect(theirs.connections()).toBe(0);
    expect(mine.connections()).toBe(1);
    expect((await proxy.meter("no-list"))?.refused).toBe(1);
  });

  it("refuses a listed name that resolves to loopback, saying which rule refused it, and opens no connection", async () => {
    const target = await echoServer();
    const proxy = await proxyWith({ allowlist: [`localhost:${target.port}`] });
    const { token } = await proxy.register({ runId: "rebind", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const tunnel = await connectThrough(proxy, `localhost:${target.port}`, `Bearer ${token}`);
    expect(tunnel.status).toBe(403);
    expect(tunnel.body).toContain("connect_destination_refused");
    expect(tunnel.body).toMatch(/"localhost\\" resolves to (127\.0\.0\.1|::1), a loopback address/);
    // Nor the proxy's own port behind it, for a Run whose own list names it.
    const inward = await proxy.register({
      runId: "inward",
      provider: "anthropic",
      credential: { kind: "api_key", value: KEY },
      allowlist: [`localhost:${proxy.port}`],
    });
    const own = await connectThrough(proxy, `localhost:${proxy.port}`, `Bearer ${inward.token}`);
    expect([own.status, own.body]).toEqual([403, expect.stringContaining("a loopback address")]);
    expect(target.connections()).toBe(0);
    expect((await proxy.meter("rebind"))?.refused).toBe(1);
  });

  it("lets a tunnel go to a private or loopback address the Operator listed as that very address", async () => {
    const target = await echoServer();
    const proxy = await proxyWith({ allowlist: [`127.0.0.1:${target.port}`] });
    const { token } = await proxy.register({ runId: "literal", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const tunnel = await connectThrough(proxy, `127.0.0.1:${target.port}`, `Bearer ${token}`);
    expect(tunnel.status).toBe(200);
    tunnel.socket!.destroy();
  });

  it("refuses an allowlist entry that is not host:port at construction, quoting it", async () => {
    await expect(createEgressProxy({ allowlist: ["example.com"] })).rejects.toThrow('allowlist[0] "example.com" is not host:port');
    await expect(createEgressProxy({ allowlist: ["example.com:443", "https://example.com:443"] })).rejects.toThrow(
      /^allowlist\[1\] "https:\/\/example.com:443"/,
    );
    await expect(createEgressProxy({ allowlist: ["example.com:0"] })).rejects.toThrow(/^allowlist\[0\]/);
  });
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
