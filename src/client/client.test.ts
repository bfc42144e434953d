// createClient without an engine: what it refuses at construction, what it sends (the token in the
// Authorization header only, one Idempotency-Key across a submit's retries), and a service that
// cannot be reached or answers something that is not the API's, as typed errors.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AgentcageError } from "../errors/index.js";
import { ClientOptionsError, createClient, ServiceError } from "./index.js";

let server: Server | undefined;
afterEach(async () => {
  const started = server;
  server = undefined;
  started?.closeAllConnections();
  if (started !== undefined) await new Promise((resolve) => started.close(resolve));
});

async function listening(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const started = createServer(handler);
  server = started;
  await new Promise<void>((resolve) => started.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
}

describe("createClient", () => {
  it("refuses a baseUrl that is not an http(s) URL, one carrying a password, and an empty token, naming each", () => {
    const refused = (options: Parameters<typeof createClient>[0]) => {
      try {
        createClient(options);
      } catch (error) {
        expect(error).toBeInstanceOf(ClientOptionsError);
        expect(error).toBeInstanceOf(AgentcageError);
        expect((error as ClientOptionsError).code).toBe("invalid_call");
        return (error as Error).message;
      }
      throw new Error("not refused");
    };
    expect(refused({ baseUrl: "ftp://127.0.0.1:8750", token: "t" })).toContain('baseUrl "ftp://127.0.0.1:8750" is not http or https');
    expect(refused({ baseUrl: "not a url", token: "t" })).toContain('baseUrl "not a url" is not a URL');
    expect(refused({ baseUrl: "http://me:secret-pass@127.0.0.1:8750", token: "t" })).not.toContain("secret-pass");
    expect(refused({ baseUrl: "http://127.0.0.1:8750", token: " " })).toContain("token is empty");
  });

  it("sends the token as a bearer header and one Idempotency-Key for a submit", async () => {
    const seen: Array<Record<string, string | undefined>> = [];
    const url = await listening((request, response) => {
      seen.push({
        authorization: request.headers.authorization,
        key: request.headers["idempotency-key"] as string,
        url: request.url,
        type: request.headers["content-type"],
      });
      response.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify({ id: "0123456789abcdef", state: "queued", labels: {} }));
    });
    const client = createClient({ baseUrl: `${url}/`, token: "the-token" });
    expect(await client.submit({ cli: "claude", prompt: "hi" }, { idempotencyKey: "k-1" })).toMatchObject({ id: "0123456789abcdef" });
    await client.submit({ cli: "claude", prompt: "hi" }, { inputs: new Uint8Array(512) });
    expect(seen[0]).toEqual({ authorization: "Bearer the-token", key: "k-1", url: "/v1/runs", type: "application/json" });
    expect(seen[1]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]?.type).toMatch(/^multipart\/form-data; boundary=/);
  });

  it("says a service that cannot be reached is unreachable, with no status, after retrying the submit", async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = await listening(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const client = createClient({ baseUrl: closed, token: "the-token" });
    const started = performance.now();
    const error = await client.submit({ cli: "claude", prompt: "hi" }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: "service_unreachable", status: undefined });
    expect((error as Error).message).toBe(`the service at ${closed} cannot be reached for POST /v1/runs (ECONNREFUSED)`);
    // Three attempts, 500 ms then 1000 ms apart.
    expect(performance.now() - started).toBeGreaterThan(1_400);
  });

  it("says an answer that is not the API's (a proxy's page) came, with its status, and a 429's Retry-After", async () => {
    const url = await listening((request, response) => {
      if (request.url === "/v1/runs")
        return void response
          .writeHead(429, { "content-type": "application/json", "retry-after": "7" })
          .end(JSON.stringify({ error: "queue_full", message: "the queue is full" }));
      response.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad Gateway</h1>");
    });
    const client = createClient({ baseUrl: url, token: "the-token" });
    await expect(client.get("0123456789abcdef")).rejects.toMatchObject({ code: "service_unreachable", status: 502, serviceMessage: undefined });
    await expect(client.list()).rejects.toThrow("the service answered GET /v1/runs with HTTP 429 queue_full: the queue is full");
    await expect(client.list()).rejects.toMatchObject({ code: "queue_full", status: 429, retryAfterSeconds: 7 });
  });

  it("streams an artifact that is empty (a writable Run's patch of no change) as an empty stream, not as no answer", async () => {
    const url = await listening((_request, response) => response.writeHead(200, { "content-type": "text/x-diff", "content-length": "0" }).end());
    const client = createClient({ baseUrl: url, token: "the-token" });
    const body = await client.artifact("0123456789abcdef", "changes.patch");
    expect(await new Response(body).text()).toBe("");
  });
});
