// The control client over connections its caller makes (as the runtime's bridge through the engine
// does): a plain Duplex, not a socket, kept open between requests, bounded, closed when idle. Every
// route works over it as over the unix socket, the event stream comes back after its connection
// drops, and a connection that cannot be made is the request's error, naming where, never the secret.

import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startStandInModel } from "../../test/stand-in/index.js";
import { createEgressControlClient, createEgressProxy, startEgressControlEndpoint, type EgressBreach } from "./index.js";
import { CALLER_CONNECTION_IDLE_MS, MAX_CALLER_CONNECTIONS } from "./limits.js";

const SECRET = randomBytes(32).toString("base64url");
const KEY = "sk-ant-api03-control-connect-key-0123456789abcdef";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Duplex of its own in front of a unix socket connection: what http sees is not a net.Socket. */
function duplexTo(socketPath: string, opened: Duplex[]): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const stream = new Duplex({
      read: () => socket.resume(),
      write: (chunk: Buffer, _encoding, done) => socket.write(chunk, done),
      final: (done) => {
        socket.end();
        done();
      },
      destroy: (error, done) => {
        socket.destroy();
        done(error);
      },
    });
    socket.on("data", (chunk: Buffer) => {
      if (!stream.push(chunk)) socket.pause();
    });
    socket.on("end", () => stream.push(null));
    socket.on("close", () => stream.destroy());
    socket.once("error", reject);
    socket.once("connect", () => {
      opened.push(stream);
      resolve(stream);
    });
  });
}

async function endpoint(): Promise<{ socketPath: string; proxyUrl: string }> {
  const standIn = await startStandInModel({ scenario: "plain" });
  cleanups.push(() => standIn.close());
  const proxy = await createEgressProxy({ upstreams: { anthropic: standIn.url } });
  cleanups.push(() => proxy.close());
  const dir = await mkdtemp(join(tmpdir(), "egress-connect-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const socketPath = join(dir, "control.sock");
  const control = await startEgressControlEndpoint(proxy, { socketPath, secret: SECRET });
  cleanups.push(() => control.close());
  return { socketPath, proxyUrl: proxy.url };
}

const modelCall = async (proxyUrl: string, token: string): Promise<number> => {
  const answer = await fetch(`${proxyUrl}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": token, "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 10, stream: false, messages: [] }),
  });
  await answer.arrayBuffer();
  return answer.status;
};

describe("the control client over its caller's connections", () => {
  it("registers, binds, meters and revokes over one connection kept open, closed once idle", async () => {
    const { socketPath, proxyUrl } = await endpoint();
    const opened: Duplex[] = [];
    const client = createEgressControlClient({ connect: () => duplexTo(socketPath, opened), secret: SECRET });
    cleanups.push(async () => client.close());
    const { token } = await client.register({ runId: "over-exec", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    expect(await client.bind("over-exec", ["127.0.0.1/32"])).toBe(true);
    expect(await modelCall(proxyUrl, token)).toBe(200);
    expect(await client.meter("over-exec")).toMatchObject({ runId: "over-exec", turns: 1 });
    expect(await client.revoke("over-exec")).toMatchObject({ runId: "over-exec", turns: 1 });
    expect(await client.meter("over-exec")).toBeUndefined();
    expect(opened).toHaveLength(1);
    expect(opened[0]?.destroyed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, CALLER_CONNECTION_IDLE_MS + 500));
    expect(opened[0]?.destroyed).toBe(true);
    expect(await client.meter("over-exec")).toBeUndefined();
    expect(opened).toHaveLength(2);
  });

  it("opens at most MAX_CALLER_CONNECTIONS at once, the other requests waiting their turn, and drops them at close", async () => {
    const { socketPath } = await endpoint();
    const opened: Duplex[] = [];
    const client = createEgressControlClient({ connect: () => duplexTo(socketPath, opened), secret: SECRET });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.meter(`nobody-${i}`)));
    expect(answers.every((answer) => answer === undefined)).toBe(true);
    expect(opened.length).toBeGreaterThan(1);
    expect(opened.length).toBeLessThanOrEqual(MAX_CALLER_CONNECTIONS);
    client.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(opened.every((stream) => stream.destroyed)).toBe(true);
  });

  it("delivers breaches on its event stream, and again after that stream's connection dropped", async () => {
    const { socketPath, proxyUrl } = await endpoint();
    const opened: Duplex[] = [];
    const client = createEgressControlClient({ connect: () => duplexTo(socketPath, opened), secret: SECRET, reconnectMs: 50 });
    cleanups.push(async () => client.close());
    const breaches: EgressBreach[] = [];
    client.onBreach((b) => breaches.push(b));
    await client.eventsOpen();
    const events = opened.at(-1) as Duplex;
    const spend = async (runId: string, waitMs = 5_000): Promise<void> => {
      const { token } = await client.register({ runId, provider: "anthropic", credential: { kind: "api_key", value: KEY }, budget: { maxTokens: 5 } });
      await modelCall(proxyUrl, token);
      const deadline = Date.now() + waitMs;
      while (!breaches.some((b) => b.runId === runId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    await spend("first");
    expect(breaches.map((b) => b.runId)).toEqual(["first"]);
    events.destroy();
    // Spent again until a breach arrives: the stream was opened again (a breach while it was down is not replayed).
    const deadline = Date.now() + 10_000;
    for (let round = 0; !breaches.some((b) => b.runId.startsWith("again-")) && Date.now() < deadline; round++) await spend(`again-${round}`, 500);
    expect(breaches.some((b) => b.runId.startsWith("again-"))).toBe(true);
  });

  it("fails a request whose connection cannot be made, naming where and not the secret", async () => {
    const client = createEgressControlClient({
      connect: () => Promise.reject(new Error("the bridge could not start")),
      where: "a bridge in the proxy's container",
      secret: SECRET,
    });
    const attempt = client.meter("any");
    await expect(attempt).rejects.toMatchObject({ code: "egress_control_failed" });
    await expect(attempt).rejects.toThrow(
      "the egress proxy's control endpoint at a bridge in the proxy's container could not be reached: the bridge could not start",
    );
    await expect(attempt).rejects.not.toThrow(SECRET);
  });

  it("fails a request no answer comes to within its bound, and on every path: a hung proxy must not hang a Run's end", async () => {
    const dir = await mkdtemp(join(tmpdir(), "egress-silent-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // Takes the connection and the request, and never says a word.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(join(dir, "silent.sock"), resolve));
    cleanups.push(async () => {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    for (const client of [
      createEgressControlClient({ socketPath: join(dir, "silent.sock"), secret: SECRET, requestTimeoutMs: 300 }),
      createEgressControlClient({ connect: () => duplexTo(join(dir, "silent.sock"), []), where: "a bridge", secret: SECRET, requestTimeoutMs: 300 }),
    ]) {
      cleanups.push(async () => client.close());
      await expect(client.revoke("0123456789abcdef")).rejects.toThrow(/could not be reached: no answer to DELETE \/v1\/runs\/ID within 300 ms/);
    }
  });

  it("waits longer after each failed reopening of its event stream, so a proxy that is gone is not asked without end", async () => {
    let tries = 0;
    const client = createEgressControlClient({
      connect: () => {
        tries += 1;
        return Promise.reject(new Error("the bridge could not start"));
      },
      where: "a bridge",
      secret: SECRET,
      reconnectMs: 50,
    });
    cleanups.push(async () => client.close());
    client.onBreach(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Waits of 50, 100, 200, 400 ms: at most 5 tries in a second (every 50 ms would be 20), and it did retry.
    expect(tries).toBeGreaterThanOrEqual(2);
    expect(tries).toBeLessThanOrEqual(5);
  });

  it("refuses two ways to reach the endpoint at once", () => {
    expect(() => createEgressControlClient({ socketPath: "/x.sock", connect: () => Promise.reject(new Error("no")), secret: SECRET })).toThrow(
      /pass exactly one/,
    );
  });
});
