// A key that stops being one loses its open streams at once, over real HTTP against the real service
// and engine with the stand-in model: revoked, every stream it holds (a Run's events, the events feed,
// an A2A message/stream and tasks/resubscribe, an MCP tool call waiting on its Run) is told why and
// closed, while its Runs go on; past its expiry, the same, at the time it expires and not before.

import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { useTenantService } from "../../../test/support/tenants.js";

const svc = useTenantService("key-streams", { slots: 2, queueBound: 20 });
/** How long a stream may stay open once its key stopped being one: instant on an idle machine, this on a busy one. */
const ENDED_WITHIN_MS = 15_000;
const HANGING = { prompt: "[stand-in:hang] never answered", timeoutSeconds: 120 };
const aborts: AbortController[] = [];
const clients: Client[] = [];

afterAll(async () => {
  for (const abort of aborts) abort.abort();
  for (const client of clients) await client.close().catch(() => undefined);
  // The Runs went on past their keys: the Operator ends them.
  for (const run of svc.running().service.live()) await svc.call(svc.operator(), `/v1/runs/${run.id}/cancel`, { method: "POST" });
});

/** An open stream: everything it said so far, and when the service closed it. */
type Opened = { readonly said: () => string; readonly closed: Promise<void> };

async function open(key: string, path: string, init: RequestInit = {}): Promise<Opened> {
  const abort = new AbortController();
  aborts.push(abort);
  const answer = await fetch(`${svc.running().url}${path}`, {
    ...init,
    signal: abort.signal,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream", ...init.headers },
  });
  expect(answer.status, path).toBe(200);
  expect(answer.headers.get("content-type"), path).toMatch(/^text\/event-stream/);
  let text = "";
  const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  // Ended by the service, or cut (by it, or by the test's end): either way no longer open.
  const closed = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })().catch(() => undefined);
  return { said: () => text, closed };
}

/** Waits until `holds` of what a stream said so far. */
async function until(stream: Opened, holds: (text: string) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!holds(stream.said())) {
    if (Date.now() > deadline) throw new Error(`the stream never said ${what}; it said: ${stream.said()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves when `ending` settles, or fails naming `what` once ENDED_WITHIN_MS have passed. */
async function within<T>(ending: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} was still open ${ENDED_WITHIN_MS} ms after its key stopped being one`)), ENDED_WITHIN_MS);
  });
  try {
    return await Promise.race([ending, late]);
  } finally {
    clearTimeout(timer);
  }
}

const rpc = (method: string, params: unknown) => ({ method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 9, method, params }) });
const legacyMessage = (text: string) => ({
  message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }], metadata: { timeoutSeconds: HANGING.timeoutSeconds } },
});

/** What every stream of a key says last, in its protocol's words, once the key stopped being one. */
const lastWords = (why: "revoked" | "expired") => ({
  sse: new RegExp(
    `event: unauthorized\\ndata: \\{"error":"unauthorized","message":"this key ${why === "revoked" ? "was revoked" : "has expired"}[^\\n]*\\}\\n\\n$`,
  ),
  a2a: new RegExp(
    `event: error\\ndata: \\{"jsonrpc":"2.0","id":9,"error":\\{"code":-32000,"message":"this key ${why === "revoked" ? "was revoked" : "has expired"}`,
  ),
});

async function connectMcp(key: string): Promise<Client> {
  const client = new Client({ name: "agentcage-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", svc.running().url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

describe("a key that stops being one", () => {
  it("ends every stream it holds when it is revoked: a Run's events, the feed, A2A streams and an MCP call, while its Runs go on", async () => {
    const { key, prefix } = await svc.makeKey("revoked", "runs:write");
    const run = await svc.submit(key, HANGING);
    const events = await open(key, `/v1/runs/${run}/events`);
    const feed = await open(key, "/v1/events");
    const streamed = await open(key, "/a2a/jsonrpc", rpc("message/stream", legacyMessage(HANGING.prompt)));
    await until(streamed, (text) => text.includes("\n\n"), "its task");
    const task = (JSON.parse(/^data: (.*)$/m.exec(streamed.said())?.[1] ?? "{}") as { result?: { id?: string } }).result?.id ?? "";
    expect(task).toMatch(/^[0-9a-f]{16}$/);
    const resubscribed = await open(key, "/a2a/jsonrpc", rpc("tasks/resubscribe", { id: task }));
    const mcp = await connectMcp(key);
    const called = mcp.callTool({ name: "run_agent", arguments: { cli: "claude", ...HANGING } }, undefined, { timeout: 120_000 });
    called.catch(() => undefined);
    // Three Runs of its tenant: the MCP call's Run is made, and the call waits on it.
    const runsOfKey = async () => ((await svc.call(key, "/v1/runs")).json()["runs"] as unknown[]).length;
    for (let i = 0; i < 600 && (await runsOfKey()) < 3; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await runsOfKey()).toBe(3);
    await until(events, (text) => text.includes("event: snapshot"), "its snapshot");
    await until(feed, (text) => text.includes(": the events feed"), "that it is open");

    expect((await svc.call(svc.operator(), `/v1/keys/${prefix}`, { method: "DELETE" })).status).toBe(200);
    // Every one of the five was held by the key and ended by its revocation.
    expect(svc.logLines.filter((line) => line.includes("ended the open streams of a revoked key"))).toEqual([
      expect.stringContaining(`"key":"${prefix}","streams":5`),
    ]);
    const words = lastWords("revoked");
    await within(events.closed, "the Run's events");
    expect(events.said()).toMatch(words.sse);
    expect(events.said()).not.toContain("event: end");
    await within(feed.closed, "the events feed");
    expect(feed.said()).toMatch(words.sse);
    await within(streamed.closed, "the A2A message/stream");
    expect(streamed.said()).toMatch(words.a2a);
    await within(resubscribed.closed, "the A2A tasks/resubscribe");
    expect(resubscribed.said()).toMatch(words.a2a);
    const failed = await within(
      called.then(
        () => undefined,
        (error: unknown) => error as Error & { code?: number },
      ),
      "the MCP run_agent call",
    );
    expect(failed?.code).toBe(-32000);
    expect(failed?.message).toContain("this key was revoked");

    // Revoking a key ends what it reads, not its tenant's work.
    for (const ran of svc
      .running()
      .service.live()
      .filter((record) => record.tenant === "revoked"))
      expect(["queued", "starting", "running"], ran.id).toContain(ran.state);
    expect((await svc.call(key, `/v1/runs/${run}/events`)).status).toBe(401);
    for (const ran of svc.running().service.live()) await svc.call(svc.operator(), `/v1/runs/${ran.id}/cancel`, { method: "POST" });
  }, 180_000);

  it("ends the streams of a key when its expiry passes, and not before", async () => {
    const writer = await svc.makeKey("expiring", "runs:write");
    const streamed = await open(writer.key, "/a2a/jsonrpc", rpc("message/stream", legacyMessage(HANGING.prompt)));
    await until(streamed, (text) => text.includes("\n\n"), "its task");
    const run = (JSON.parse(/^data: (.*)$/m.exec(streamed.said())?.[1] ?? "{}") as { result?: { id?: string } }).result?.id ?? "";
    // Time enough to open its streams on a busy machine before it expires.
    const expiresAt = Date.now() + 10_000;
    const { key } = await svc.makeKey("expiring", "runs:read", new Date(expiresAt).toISOString());
    const streams: Array<[Opened, string]> = [
      [await open(key, `/v1/runs/${run}/events`), "the Run's events"],
      [await open(key, "/v1/events"), "the events feed"],
      [await open(key, "/a2a/jsonrpc", rpc("tasks/resubscribe", { id: run })), "the A2A tasks/resubscribe"],
    ];
    expect(Date.now(), "the streams opened after the key expired; the test needs a longer expiry here").toBeLessThan(expiresAt);
    const closedAt = streams.map(([stream]) => stream.closed.then(() => Date.now()));

    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now()));
    const words = lastWords("expired");
    for (const [[stream, what], at] of streams.map((held, index) => [held, closedAt[index]] as const)) {
      expect(await within(at as Promise<number>, what), what).toBeGreaterThanOrEqual(expiresAt);
      expect(stream.said(), what).toMatch(what.startsWith("the A2A") ? words.a2a : words.sse);
    }
    // The key's end is not its tenant's: the writer's own stream goes on, and so does the Run.
    expect(streamed.said()).not.toContain("event: error");
    expect(["queued", "starting", "running"]).toContain((await svc.call(writer.key, `/v1/runs/${run}`)).json()["state"]);
  }, 120_000);
});
