// One attempt to deliver a webhook, against a real receiver on loopback: signed so the Standard
// Webhooks library verifies it, only 2xx delivers, a redirect is not followed, a silent receiver
// is cut at the deadline, at most the first KiB of an answer is kept, and a private address is
// not posted to unless allowed.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES, postWebhook } from "./webhook-post.js";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function receiver(answer: (request: IncomingMessage, body: string, response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => answer(request, body, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const post = (url: string, overrides: { allowPrivate?: boolean; timeoutMs?: number } = {}) =>
  postWebhook(
    { url, webhookId: "msg_0123456789abcdef_finished", payload: JSON.stringify({ type: "run.finished" }), secret: SECRET },
    { allowPrivate: overrides.allowPrivate ?? true, timeoutMs: overrides.timeoutMs ?? 5_000, signal: new AbortController().signal },
  );

describe("postWebhook", () => {
  it("signs what it sends so the Standard Webhooks library verifies it, and a 2xx delivers it", async () => {
    let verified: unknown;
    let agent: string | undefined;
    const url = await receiver((request, body, response) => {
      verified = new Webhook(SECRET).verify(body, request.headers as Record<string, string>);
      agent = request.headers["user-agent"];
      response.writeHead(204).end();
    });
    expect(await post(url)).toMatchObject({ delivered: true, status: 204 });
    expect(verified).toEqual({ type: "run.finished" });
    expect(agent).toBe("agentcage");
  });

  it("does not follow a redirect, and keeps at most the first KiB of an answer", async () => {
    const redirect = await receiver((_request, _body, response) => response.writeHead(302, { location: "http://169.254.169.254/" }).end("moved"));
    expect(await post(redirect)).toMatchObject({ delivered: false, status: 302, response: "moved" });
    const long = await receiver((_request, _body, response) => response.writeHead(500).end("x".repeat(64 * 1024)));
    const answered = await post(long);
    expect(answered).toMatchObject({ delivered: false, status: 500 });
    expect(answered.response).toHaveLength(MAX_ANSWER_BYTES);
  });

  it("cuts a receiver that does not answer at the deadline", async () => {
    const silent = await receiver(() => undefined);
    const started = Date.now();
    expect(await post(silent, { timeoutMs: 300 })).toMatchObject({ delivered: false, error: "no answer within 0.3 s" });
    // Cut at its deadline, not held to the receiver's: well under the seconds a busy machine may add to a 0.3 s timer.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("does not post to a private address unless allowed, and says why", async () => {
    let reached = false;
    const url = await receiver((_request, _body, response) => {
      reached = true;
      response.end();
    });
    expect(await post(url, { allowPrivate: false })).toMatchObject({
      delivered: false,
      error: "the callback URL resolves to 127.0.0.1, a loopback address; not posted",
    });
    expect(reached).toBe(false);
  });

  it("says the connection was refused for a port nobody listens on", async () => {
    const url = await receiver(() => undefined);
    const closed = servers.pop() as Server;
    await new Promise((resolve) => closed.close(resolve));
    expect((await post(url)).error).toContain("ECONNREFUSED");
  });
});
