// One Run must not be able to take the egress proxy from the others: large and many bodies are
// refused before they fill its memory, silent and trickling connections are closed on a named
// timeout, and one source cannot hold every connection. The second Run's call completes meanwhile.

import { createServer, request, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { sendLargeBody } from "../../test/support/large-body.js";
import {
  createEgressProxy,
  MAX_CONNECTIONS_PER_SOURCE,
  MAX_REQUEST_BODY_BYTES,
  MAX_RUN_REQUESTS_IN_FLIGHT,
  type EgressProxy,
  type EgressProxyOptions,
} from "./index.js";

const KEY = "sk-ant-api03-abuse-test-key-0123456789abcdef";
/** Linux routes all of 127.0.0.0/8 to loopback: a second Run's agent, from an address of its own. */
const OTHER_SOURCE = "127.0.0.2";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A provider that answers every model call with a short stream, over `streamMs`, with usage. */
async function upstream(streamMs = 0): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.once("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":5,"output_tokens":1}}}\n\n`,
      );
      setTimeout(() => {
        res.write(`event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":3}}\n\n`);
        res.end(`event: message_stop\ndata: {"type":"message_stop"}\n\n`);
      }, streamMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function proxyFor(upstreamUrl: string, options: EgressProxyOptions = {}, lines: string[] = []): Promise<EgressProxy> {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString("utf8")
          .split("\n")
          .filter((line) => line !== ""),
      );
      callback();
    },
  });
  const proxy = await createEgressProxy({ upstreams: { anthropic: upstreamUrl }, logger: pino(sink), ...options });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** One model call from `localAddress`; resolves with its status and how long it took. */
function call(
  proxy: EgressProxy,
  token: string,
  localAddress = "127.0.0.1",
  body: Buffer = Buffer.from('{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[]}'),
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: proxy.port,
        localAddress,
        method: "POST",
        path: "/v1/messages",
        headers: { "x-api-key": token, "content-type": "application/json", "content-length": body.length },
      },
      (res: IncomingMessage) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A body of `size` bytes sent with back-pressure; resolves with the status, or 0 when the proxy closed the connection. */
function bigCall(proxy: EgressProxy, token: string, size: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port: proxy.port, method: "POST", path: "/v1/messages", headers: { "x-api-key": token, "content-type": "application/json" } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", () => resolve(0));
    sendLargeBody(req, size);
  });
}

/** Resolves with how long the socket stayed open, in ms. */
function openedFor(socket: Socket): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => socket.once("close", () => resolve(Date.now() - started)));
}

function rawConnection(proxy: EgressProxy, localAddress = "127.0.0.1"): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: proxy.port, localAddress }, () => resolve(socket));
    socket.on("error", reject);
    // Read what comes (a 408), or the stream never ends and its close is never seen.
    socket.resume();
    cleanups.push(async () => void socket.destroy());
  });
}

describe("the egress proxy under one abusive Run", () => {
  it("refuses a Run's concurrent large bodies past what one Run may hold, while a second Run's call completes", async () => {
    const lines: string[] = [];
    const proxy = await proxyFor(await upstream(200), {}, lines);
    const abusive = await proxy.register({ runId: "abusive", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const calm = await proxy.register({ runId: "calm", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const size = MAX_REQUEST_BODY_BYTES - 1024 * 1024;
    // Six bodies of nearly 32 MiB at once: 186 MiB if each were read whole, as they were.
    const flood = Promise.all(Array.from({ length: 6 }, () => bigCall(proxy, abusive.token, size)));
    const second = await call(proxy, calm.token, OTHER_SOURCE);
    expect(second.status).toBe(200);
    expect(second.text).toContain("message_stop");
    const statuses = await flood;
    // A body read whole is refused 403 (it is not JSON); those that arrived while the Run held
    // MAX_RUN_HELD_REQUEST_BYTES already are refused 429 as they come (a client still writing may
    // see only the connection close), and none went upstream.
    expect(statuses.every((status) => status === 429 || status === 403 || status === 0)).toBe(true);
    const refusals = lines.map((line) => JSON.parse(line) as { runId?: string; refused?: string }).filter((line) => line.runId === "abusive");
    expect(refusals.filter((line) => line.refused === "too_many_bytes_held").length).toBeGreaterThanOrEqual(1);
    // Some clients see only the connection closing under their writes; the proxy refused all six.
    expect(await proxy.meter("abusive")).toMatchObject({ turns: 0, refused: 6 });
    // Nothing is held once they are answered: the abusive Run itself can call again.
    expect((await call(proxy, abusive.token)).status).toBe(200);
  });

  it("closes connections that never send a byte, and those that trickle a body, on their timeouts", async () => {
    const timeouts = { headersMs: 1_000, requestMs: 2_000 };
    const proxy = await proxyFor(await upstream(), { timeouts });
    const { token } = await proxy.register({ runId: "slow", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const silent = await rawConnection(proxy);
    const trickle = await rawConnection(proxy);
    trickle.write(`POST /v1/messages HTTP/1.1\r\nhost: egress\r\nx-api-key: ${token}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`);
    const dripping = setInterval(() => trickle.writable && trickle.write(" "), 200);
    cleanups.push(async () => clearInterval(dripping));
    const [silentMs, trickleMs] = await Promise.all([openedFor(silent), openedFor(trickle)]);
    // Closed on the timeout (checked each second), with three times that as the bound on a busy machine.
    expect(silentMs).toBeGreaterThanOrEqual(timeouts.headersMs - 100);
    expect(silentMs).toBeLessThan(3 * (timeouts.headersMs + 1_000));
    expect(trickleMs).toBeGreaterThanOrEqual(timeouts.requestMs - 100);
    expect(trickleMs).toBeLessThan(3 * (timeouts.requestMs + 1_000));
  }, 30_000);

  it("lets an answer stream for longer than the request timeout once the request has arrived", async () => {
    const proxy = await proxyFor(await upstream(3_000), { timeouts: { headersMs: 500, requestMs: 1_000 } });
    const { token } = await proxy.register({ runId: "long", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const answer = await call(proxy, token);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain("message_stop");
  }, 30_000);

  it("closes connections from one source past MAX_CONNECTIONS_PER_SOURCE as they open, and serves another source meanwhile", async () => {
    const proxy = await proxyFor(await upstream());
    const { token } = await proxy.register({ runId: "other", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const sockets = await Promise.all(Array.from({ length: 2 * MAX_CONNECTIONS_PER_SOURCE }, () => rawConnection(proxy)));
    const closed = sockets.map(
      (socket) =>
        new Promise<boolean>((resolve) => {
          socket.once("close", () => resolve(true));
          setTimeout(() => resolve(false), 500);
        }),
    );
    const seen = await Promise.all(closed);
    expect(seen.filter((wasClosed) => wasClosed).length).toBe(MAX_CONNECTIONS_PER_SOURCE);
    expect((await call(proxy, token, OTHER_SOURCE)).status).toBe(200);
  });

  it("answers 429 past MAX_RUN_REQUESTS_IN_FLIGHT of one Run's requests at once", async () => {
    const proxy = await proxyFor(await upstream(1_000));
    const { token } = await proxy.register({ runId: "many", provider: "anthropic", credential: { kind: "api_key", value: KEY } });
    const statuses = await Promise.all(Array.from({ length: MAX_RUN_REQUESTS_IN_FLIGHT + 4 }, () => call(proxy, token).then((a) => a.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_RUN_REQUESTS_IN_FLIGHT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(4);
  });
});
