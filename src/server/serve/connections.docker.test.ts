// The service's connections over a real socket (node:net) against a started service: one that
// never sends a byte, and one whose headers trickle in a byte at a time (slowloris), are both
// closed within their named limit; a request that arrives in time is answered as ever. The three
// run at once: each waits out a limit of its own on a connection of its own.

import { connect, type Socket } from "node:net";
import { describe, it } from "vitest";
import { useTestService } from "../../../test/support/service.js";
import { CONNECTIONS_CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS, IDLE_CONNECTION_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "../limits.js";

const service = useTestService("connections", { slots: 1, queueBound: 1 });

/** A raw connection to the service, and when it was closed (by the service: this side never ends it). */
async function open(): Promise<{ socket: Socket; closed: Promise<number>; received: () => string }> {
  const { hostname, port } = new URL(service.running().url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let text = "";
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  const openedAt = performance.now();
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now() - openedAt)));
  return { socket, closed, received: () => text };
}

/** How long `closed` took, or Infinity when it had not closed after `ms`. */
const within = (closed: Promise<number>, ms: number) =>
  Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), ms))]);

describe.concurrent("the service's connections", () => {
  it(
    "closes a connection that never sends a byte",
    async ({ expect }) => {
      const { socket, closed } = await open();
      const tookMs = await within(closed, 3 * IDLE_CONNECTION_TIMEOUT_MS);
      socket.destroy();
      console.log(`a silent connection was closed after ${tookMs.toFixed(0)} ms (IDLE_CONNECTION_TIMEOUT_MS ${IDLE_CONNECTION_TIMEOUT_MS})`);
      expect(tookMs).toBeGreaterThanOrEqual(IDLE_CONNECTION_TIMEOUT_MS - 100);
      expect(tookMs).toBeLessThan(3 * IDLE_CONNECTION_TIMEOUT_MS);
    },
    4 * IDLE_CONNECTION_TIMEOUT_MS,
  );

  it(
    "closes a connection whose headers trickle in a byte a second",
    async ({ expect }) => {
      const { socket, closed, received } = await open();
      socket.write("GET /healthz HTTP/1.1\r\nHost: agentcage\r\n");
      const trickle = setInterval(() => socket.write("x"), 1_000);
      const bound = 3 * (HEADERS_TIMEOUT_MS + CONNECTIONS_CHECK_INTERVAL_MS);
      const tookMs = await within(closed, bound);
      clearInterval(trickle);
      socket.destroy();
      console.log(`a connection trickling its headers was closed after ${tookMs.toFixed(0)} ms (HEADERS_TIMEOUT_MS ${HEADERS_TIMEOUT_MS})`);
      expect(tookMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(tookMs).toBeLessThan(bound);
      expect(received()).toMatch(/^HTTP\/1\.1 408 /);
    },
    4 * (HEADERS_TIMEOUT_MS + CONNECTIONS_CHECK_INTERVAL_MS),
  );

  it("answers a request that arrives in time, slowly or not, and holds every request to its bound", async ({ expect }) => {
    const { socket, closed, received } = await open();
    // Headers a byte every 100 ms for about a second and a half, well inside the bounds.
    for (const byte of "GET /healthz HTTP/1.1\r\nHost: a\r\n") {
      socket.write(byte);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    socket.write("Connection: close\r\n\r\n");
    await within(closed, 10_000);
    expect(received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(service.running().app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(service.running().app.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
  }, 30_000);
});
