// The follow against a scripted service over a real socket (no engine): a stream cut mid-Run is
// taken up with Last-Event-ID, each event once; a stream that ends early is resumed; a 204 ends it;
// a refusal is thrown at once with its status; silence past the idle timeout gives up.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type RunEvent, ServiceError } from "./index.js";

const TOKEN = "a-token-for-the-follow";
const RUN = "0123456789abcdef";
const EVENTS = [
  { id: 1, type: "state", data: { state: "running" } },
  { id: 2, type: "agent", data: { type: "init", sessionId: "s" } },
  { id: 3, type: "agent", data: { type: "assistant_text", text: "Paris" } },
  { id: 4, type: "agent", data: { type: "turn", number: 2 } },
  { id: 5, type: "end", data: { ok: true, reason: "completed", result: { text: "Paris" } } },
];
const frame = (event: (typeof EVENTS)[number]) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A service whose `respond` answers each connection to the Run's events, told the Last-Event-ID it sent (0: none). */
async function scripted(respond: (after: number, response: ServerResponse, request: IncomingMessage) => void): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const listening = createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized", message: "the token is wrong" }));
      return;
    }
    const last = request.headers["last-event-id"];
    asked.push(typeof last === "string" ? last : "-");
    respond(Number(last ?? 0), response, request);
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, asked };
}

const streaming = (response: ServerResponse) => {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.write(`event: snapshot\ndata: ${JSON.stringify({ id: RUN, state: "running" })}\n\n`);
};

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("follow", () => {
  it("takes a cut stream up with Last-Event-ID: every event once, in order, to the end", async () => {
    let connections = 0;
    const service = await scripted((after, response) => {
      connections += 1;
      streaming(response);
      for (const event of EVENTS.filter((e) => e.id > after)) {
        // The first connection is cut in the middle of event 3's frame.
        if (connections === 1 && event.id === 3) return void response.socket?.end(frame(event).slice(0, 20), () => response.socket?.destroy());
        response.write(frame(event));
      }
      response.end();
    });
    const reconnects: Array<number | undefined> = [];
    const client = createClient({ baseUrl: service.url, token: TOKEN });
    const seen = await collect(client.follow(RUN, { onReconnect: (last) => reconnects.push(last) }));
    expect(seen.filter((e) => e.type !== "snapshot").map((e) => e.id)).toEqual([1, 2, 3, 4, 5]);
    expect(seen.filter((e) => e.type === "snapshot")).toHaveLength(2);
    expect(service.asked).toEqual(["-", "2"]);
    expect(reconnects).toEqual([2]);
    expect(seen.at(-1)).toEqual({ type: "end", id: 5, data: EVENTS[4]?.data });
  });

  it("passes over an event it was sent twice, and one of a type it does not know", async () => {
    const service = await scripted((_after, response) => {
      streaming(response);
      response.write(`${frame(EVENTS[0] as (typeof EVENTS)[number])}${frame(EVENTS[0] as (typeof EVENTS)[number])}id: 2\nevent: newer\ndata: {}\n\n`);
      response.end(frame(EVENTS[4] as (typeof EVENTS)[number]));
    });
    const seen = await collect(createClient({ baseUrl: service.url, token: TOKEN }).follow(RUN));
    expect(seen.map((e) => `${e.type}${e.id ?? ""}`)).toEqual(["snapshot", "state1", "end5"]);
  });

  it("resumes after the id it was given, and ends at a 204 (the end was already sent)", async () => {
    const service = await scripted((after, response) => {
      if (after >= 5) return void response.writeHead(204).end();
      streaming(response);
      for (const event of EVENTS.filter((e) => e.id > after)) response.write(frame(event));
      response.end();
    });
    const client = createClient({ baseUrl: service.url, token: TOKEN });
    const resumed = await collect(client.follow(RUN, { lastEventId: 3 }));
    expect(resumed.map((e) => e.id)).toEqual([undefined, 4, 5]);
    expect(await collect(client.follow(RUN, { lastEventId: 5 }))).toEqual([]);
    expect(service.asked).toEqual(["3", "5"]);
  });

  it("throws a refusal at once, naming its status and code", async () => {
    const service = await scripted((_after, response) => {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not_found", message: `no Run "${RUN}"` }));
    });
    const refused = await collect(createClient({ baseUrl: service.url, token: TOKEN }).follow(RUN)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ status: 404, code: "not_found", serviceMessage: `no Run "${RUN}"` });
    expect((refused as Error).message).toContain("HTTP 404 not_found");
    expect(service.asked).toEqual(["-"]);
    const unauthorized = await collect(createClient({ baseUrl: service.url, token: "sk-not-the-token" }).follow(RUN)).catch((error: unknown) => error);
    expect(unauthorized).toMatchObject({ status: 401, code: "unauthorized" });
    expect((unauthorized as Error).message).toContain("HTTP 401");
    expect((unauthorized as Error).message).not.toContain("sk-not-the-token");
  });

  it("gives up on a service silent past the idle timeout, keep-alives holding it off until then", async () => {
    let keepAlives = 3;
    const service = await scripted((_after, response) => {
      streaming(response);
      const beat = setInterval(() => (keepAlives-- > 0 ? response.write(": keep-alive\n\n") : clearInterval(beat)), 300);
    });
    const started = performance.now();
    const silent = await collect(createClient({ baseUrl: service.url, token: TOKEN }).follow(RUN, { idleTimeoutMs: 600 })).catch((error: unknown) => error);
    const took = performance.now() - started;
    expect(silent).toMatchObject({ code: "service_silent", status: undefined });
    expect((silent as Error).message).toContain(`/v1/runs/${RUN}`);
    // Three keep-alives 300 ms apart, then 600 ms of silence; the watchdog looks every 600 ms.
    expect(took).toBeGreaterThan(1_300);
    expect(took).toBeLessThan(3 * 2_500);
  });

  it("ends the connection when the caller stops early, and when its signal aborts", async () => {
    let closed = 0;
    const service = await scripted((_after, response, request) => {
      request.on("close", () => (closed += 1));
      streaming(response);
      response.write(frame(EVENTS[0] as (typeof EVENTS)[number]));
    });
    const client = createClient({ baseUrl: service.url, token: TOKEN });
    for await (const event of client.follow(RUN)) if (event.type === "state") break;
    const aborted = new AbortController();
    const following = collect(client.follow(RUN, { signal: aborted.signal }));
    setTimeout(() => aborted.abort(new Error("stopped by the caller")), 200);
    await expect(following).rejects.toThrow("stopped by the caller");
    await expect.poll(() => closed).toBe(2);
  });
});
