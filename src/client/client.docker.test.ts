// agentcage/client against a real `agentcage serve --stand-in` over a real socket: a typed submit,
// get and follow to the Run's end; a stream cut mid-Run (a TCP proxy in between cuts it inside a
// frame) resumed with Last-Event-ID with no event twice and none missed; a bad token as a typed
// error naming its status; the Harvest read back through the same client.

import { readFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { TOOL_FINAL_ANSWER, WRITTEN_FILE_TEXT } from "../../test/stand-in/index.js";
import { useTestService } from "../../test/support/service.js";
import { tarOf } from "../../test/support/tar.js";
import { createClient, type RunEvent, ServiceError } from "./index.js";

const service = useTestService("client", { slots: 2 });
const proxies: Server[] = [];
afterAll(() => {
  for (const proxy of proxies) proxy.close();
});

const client = () => createClient({ baseUrl: service.running().url, token: service.token() });

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** The ids of the numbered events, each checked to follow the one before it: no event twice, none missed. */
function numbered(events: readonly RunEvent[]): number[] {
  const ids = events.flatMap((event) => (event.id === undefined ? [] : [event.id]));
  expect(ids).toEqual(ids.map((_, i) => i + 1));
  return ids;
}

/**
 * A TCP proxy to the service that lets the first event stream through up to event `cutAfter`'s
 * frame and a few bytes of the next one, then cuts both sides: the client holds half a frame.
 */
async function cuttingProxy(cutAfter: number): Promise<{ url: string; cuts: () => number }> {
  const target = new URL(service.running().url);
  let cuts = 0;
  let cutOne = false;
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    let isEvents = false;
    let passed = "";
    client.on("data", (chunk: Buffer) => {
      if (!cutOne && /^GET \/v1\/runs\/[0-9a-f]+\/events/.test(chunk.toString("latin1"))) isEvents = cutOne = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!isEvents) return void client.write(chunk);
      const before = passed.length;
      passed += chunk.toString("latin1");
      const frame = passed.indexOf(`\nid: ${cutAfter}\n`);
      const frameEnd = frame === -1 ? -1 : passed.indexOf("\n\n", frame);
      if (frameEnd === -1) return void client.write(chunk);
      cuts += 1;
      isEvents = false;
      client.end(Buffer.from(passed.slice(before, frameEnd + 2 + "id: ".length + 1), "latin1"), () => client.destroy());
      upstream.destroy();
    });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  proxies.push(proxy);
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, cuts: () => cuts };
}

describe("agentcage/client", () => {
  it("submits a typed Run, follows it to its end, and gets it, listed and removed", async () => {
    const api = client();
    const run = await api.submit({ cli: "claude", prompt: "What is the capital of France?", labels: { suite: "client" } });
    expect(run).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{16}$/), labels: { suite: "client" } });
    const events: RunEvent[] = [];
    for await (const event of api.follow(run.id)) events.push(event);
    expect(events[0]).toMatchObject({ type: "snapshot", data: { id: run.id } });
    numbered(events);
    const end = events.at(-1);
    if (end?.type !== "end") throw new Error(`the follow ended on ${end?.type}`);
    expect(end.data).toMatchObject({ ok: true, reason: "completed", runId: run.id });
    expect(events.some((event) => event.type === "agent" && event.data.type === "assistant_text")).toBe(true);

    const got = await api.get(run.id);
    expect(got).toMatchObject({ id: run.id, state: "completed", outcome: { ok: true, reason: "completed" } });
    expect(got.outcome?.result?.text).toBe(end.data.result?.text);
    expect((await api.list({ label: ["suite=client"] })).runs.map((listed) => listed.id)).toEqual([run.id]);
    expect(await api.request(run.id)).toMatchObject({ prompt: "What is the capital of France?" });
    expect(await api.cancel(run.id)).toMatchObject({ state: "completed" });
    expect(await api.pool()).toEqual({ enabled: false });
    await api.remove(run.id);
    await expect(api.get(run.id)).rejects.toMatchObject({ status: 404, code: "not_found" });
  }, 120_000);

  it("resumes a stream cut inside a frame with Last-Event-ID: each event once, none missed, to the end", async () => {
    const proxy = await cuttingProxy(3);
    const api = createClient({ baseUrl: proxy.url, token: service.token() });
    const run = await api.submit({ cli: "claude", prompt: "[stand-in:tool_write_bash] write the answer" });
    const reconnects: Array<number | undefined> = [];
    const events: RunEvent[] = [];
    for await (const event of api.follow(run.id, { onReconnect: (last) => reconnects.push(last) })) events.push(event);
    expect(proxy.cuts()).toBe(1);
    expect(reconnects).toEqual([3]);
    const ids = numbered(events);
    expect(ids.length).toBeGreaterThan(4);
    // What the service keeps of the Run is exactly what the follow yielded.
    const kept = readFileSync(`${service.runtimeDir}/service/runs/${run.id}/events.jsonl`, "utf8").trim().split("\n");
    expect(ids).toEqual(kept.map((line) => (JSON.parse(line) as { id: number }).id));
    expect(events.at(-1)).toMatchObject({ type: "end", data: { ok: true, result: { text: TOOL_FINAL_ANSWER } } });

    // A follow that stopped (a caller that left after event 2) takes up after it: the rest, no more.
    const first: RunEvent[] = [];
    for await (const event of api.follow(run.id)) {
      first.push(event);
      if (event.id === 2) break;
    }
    const rest: RunEvent[] = [];
    for await (const event of api.follow(run.id, { lastEventId: 2 })) rest.push(event);
    expect([...first, ...rest].flatMap((event) => (event.id === undefined ? [] : [event.id]))).toEqual(ids);
    // After the end there is nothing to follow.
    expect(await collect(api.follow(run.id, { lastEventId: ids.at(-1) as number }))).toEqual([]);
  }, 120_000);

  it("refuses a bad token with a typed error naming the status, and never says the token", async () => {
    const wrong = createClient({ baseUrl: service.running().url, token: "sk-a-token-the-service-never-made" });
    const refused = await wrong.submit({ cli: "claude", prompt: "hi" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ name: "ServiceError", status: 401, code: "unauthorized" });
    expect((refused as ServiceError).message).toContain("HTTP 401 unauthorized");
    expect((refused as ServiceError).message).not.toContain("sk-a-token-the-service-never-made");
    await expect(wrong.list()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    await expect(collect(wrong.follow("0123456789abcdef"))).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  }, 60_000);

  it("sends input files with the request and reads the Harvest back: one file, the list, the tar", async () => {
    const api = client();
    const inputs = await tarOf({ "README.md": "# a project\n" });
    const run = await api.submit({ cli: "claude", prompt: "[stand-in:tool_write_bash] write the answer", writable: true }, { inputs });
    for await (const event of api.follow(run.id)) if (event.type === "end") expect(event.data.ok).toBe(true);
    expect(await api.artifacts(run.id)).toMatchObject({ harvested: true, patch: true });
    expect(await new Response(await api.artifact(run.id, "out/answer.txt")).text()).toBe(WRITTEN_FILE_TEXT);
    const tar = Buffer.from(await new Response(await api.artifactsTar(run.id)).arrayBuffer());
    expect(tar.includes(Buffer.from(WRITTEN_FILE_TEXT))).toBe(true);
    await expect(api.artifact(run.id, "out/none.txt")).rejects.toMatchObject({ status: 404, code: "not_found" });
  }, 120_000);
});
