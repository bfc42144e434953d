// The service's stop() over a real socket: once its Runs are drained, a connection that still holds
// a request (a body that trickles in, a keep-alive one that went quiet mid-request) does not hold the
// stop for Fastify's 72 s keep-alive or the upload's timeout: it is closed after STOP_CONNECTIONS_GRACE_MS.

import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { capturingLogger } from "../../../test/support/engine.js";
import { serve } from "../index.js";
import { STOP_CONNECTIONS_GRACE_MS } from "../limits.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-stop-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A raw connection, and when the service closed it. */
async function open(url: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => undefined);
  socket.on("data", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, closed };
}

describe("stop()", () => {
  it("closes the connections still in a request once the grace has passed, and answers", async () => {
    const running = await serve({ runtimeDir: join(root, "rt"), port: 0, standIn: true, slots: 1, logger: capturingLogger().logger, environment: {} });
    const trickling = await open(running.url);
    // A Run's upload that has sent its head and 20 of its 100,000 bytes, and goes on a byte a second.
    trickling.socket.write('POST /v1/runs HTTP/1.1\r\nHost: agentcage\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"prompt": "aaaaaaaa');
    const trickle = setInterval(() => trickling.socket.write("a"), 1_000);
    const quiet = await open(running.url);
    // A keep-alive client that was answered once and then began a request it never finished.
    quiet.socket.write("GET /healthz HTTP/1.1\r\nHost: agentcage\r\n\r\nGET /healthz HTTP/1.1\r\nHost: agen");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const startedAt = performance.now();
    const stopped = await Promise.race([
      running.stop(1_000).then(() => performance.now() - startedAt),
      new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 3 * (STOP_CONNECTIONS_GRACE_MS + 5_000))),
    ]);
    clearInterval(trickle);
    trickling.socket.destroy();
    quiet.socket.destroy();
    console.log(`stop() with two connections mid-request took ${stopped.toFixed(0)} ms (STOP_CONNECTIONS_GRACE_MS ${STOP_CONNECTIONS_GRACE_MS})`);
    expect(stopped).toBeLessThan(3 * (STOP_CONNECTIONS_GRACE_MS + 5_000));
    // Not cut at once: a request in flight had its grace.
    expect(stopped).toBeGreaterThanOrEqual(STOP_CONNECTIONS_GRACE_MS - 100);
    await trickling.closed;
    await quiet.closed;
  }, 120_000);
});
