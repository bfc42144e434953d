// The events feed and the usage figures over real HTTP, against the real service and engine with the
// stand-in model and two tenants: a real Run's lifecycle and figures reach its tenant's feed and usage
// (and a stream of them), the feed outlives a restart with its numbering going on, and a stream
// delivers a run.finished as it happens. Which tenant sees what, by page, cursor and ?tenant=, is
// route logic, tested without the engine in route-feed.test.ts.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturingLogger } from "../../../test/support/engine.js";
import type { FeedEntry } from "./feed.js";
import { serve, type RunningService } from "../index.js";

const TOKEN = "feed-test-operator-token-0123456789abcdef";
const root = mkdtempSync(join(tmpdir(), "agentcage-feed-"));
const runtimeDir = join(root, "rt");
let running: RunningService | undefined;
const keys = { alpha: "", beta: "" };

const start = async () => {
  running = await serve({ runtimeDir, port: 0, standIn: true, slots: 2, logger: capturingLogger().logger, environment: { AGENTCAGE_TOKEN: TOKEN } });
};
const url = () => (running as RunningService).url;
const call = (key: string, path: string, init: RequestInit = {}) =>
  fetch(`${url()}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers } });
const json = async <T>(key: string, path: string): Promise<T> => {
  const answer = await call(key, path);
  expect(answer.status, path).toBe(200);
  return (await answer.json()) as T;
};
type Page = { events: FeedEntry[]; nextAfter: number };
type Usage = {
  since: string;
  tenants: Array<{
    tenant: string;
    runs: number;
    reasons: Record<string, number>;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    labels: Record<string, { runs: number }>;
  }>;
};

async function submit(key: string, labels: Record<string, string>): Promise<string> {
  const answer = await call(key, "/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "What is the capital of France?", labels }) });
  expect(answer.status).toBe(202);
  return ((await answer.json()) as { id: string }).id;
}

async function ended(key: string, id: string): Promise<void> {
  for (let i = 0; i < 900; i++) {
    const run = (await (await call(key, `/v1/runs/${id}`)).json()) as { endedAt?: string };
    if (run.endedAt !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Run ${id} did not end within 90 s`);
}

/** Reads a text/event-stream until `until` holds of the events so far (or the time runs out). */
type Streamed = {
  readonly headers?: Record<string, string>;
  readonly until: (events: FeedEntry[]) => boolean;
  readonly timeoutMs: number;
  /** What to do once the stream is open. */
  readonly opened?: () => Promise<void>;
};

async function streamed(key: string, path: string, { headers = {}, until, timeoutMs, opened }: Streamed): Promise<FeedEntry[]> {
  const aborted = new AbortController();
  const timer = setTimeout(() => aborted.abort(), timeoutMs);
  const answer = await call(key, path, { headers: { accept: "text/event-stream", ...headers }, signal: aborted.signal });
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toContain("text/event-stream");
  const events: FeedEntry[] = [];
  const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const starting = opened?.();
  try {
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      let cut = text.indexOf("\n\n");
      while (cut !== -1) {
        const block = text.slice(0, cut);
        text = text.slice(cut + 2);
        const data = block.split("\n").find((line) => line.startsWith("data: "));
        const id = block.split("\n").find((line) => line.startsWith("id: "));
        if (data !== undefined) {
          const entry = JSON.parse(data.slice("data: ".length)) as FeedEntry;
          expect(id).toBe(`id: ${entry.id}`);
          events.push(entry);
        }
        cut = text.indexOf("\n\n");
      }
    }
  } catch (error) {
    if (!aborted.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    aborted.abort();
    await starting;
  }
  return events;
}

beforeAll(async () => {
  await start();
  for (const tenant of ["alpha", "beta"] as const) {
    const made = await call(TOKEN, "/v1/keys", { method: "POST", body: JSON.stringify({ tenant, scope: "runs:write" }) });
    expect(made.status).toBe(201);
    keys[tenant] = ((await made.json()) as { key: string }).key;
  }
}, 60_000);
afterAll(async () => {
  await running?.stop(5_000);
  rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("GET /v1/events and GET /v1/usage with two tenants", () => {
  let alphaRun = "";

  it("feeds each tenant its own real Runs' queued, started and finished, with the figures its usage counts, by page and by stream", async () => {
    alphaRun = await submit(keys.alpha, { team: "red" });
    const betaRun = await submit(keys.beta, { team: "blue" });
    await ended(keys.alpha, alphaRun);
    await ended(keys.beta, betaRun);
    const alpha = await json<Page>(keys.alpha, "/v1/events");
    expect(alpha.events.map((entry) => [entry.runId, entry.type])).toEqual([
      [alphaRun, "run.queued"],
      [alphaRun, "run.started"],
      [alphaRun, "run.finished"],
    ]);
    const finished = alpha.events.at(-1) as FeedEntry;
    expect(finished.data).toMatchObject({ state: "completed", labels: { team: "red" }, reason: "completed" });
    // The stand-in reports tokens as a provider does: the figures are there to count, the same in the usage.
    const [own] = (await json<Usage>(keys.alpha, "/v1/usage")).tenants;
    expect(own?.inputTokens).toBeGreaterThan(0);
    expect(own?.inputTokens).toBe(finished.data.inputTokens);
    expect(own?.outputTokens).toBe(finished.data.outputTokens ?? 0);
    expect(own?.costUsd).toBe(finished.data.costUsd ?? 0);
    // A stream of alpha's replays alpha's alone. (Paging, cursors and ?tenant= are route logic: route-feed.test.ts.)
    const replayed = await streamed(keys.alpha, "/v1/events?after=0", { until: (events) => events.length >= 3, timeoutMs: 3_000 });
    expect(replayed.map((entry) => [entry.runId, entry.type])).toEqual(alpha.events.map((entry) => [entry.runId, entry.type]));
  }, 120_000);

  it("keeps the feed across a restart: the earlier events are there, and the ids go on", async () => {
    const before = await json<Page>(keys.alpha, "/v1/events");
    // A stream open as the service stops is ended by it, not waited on.
    const open = await call(keys.alpha, "/v1/events", { headers: { accept: "text/event-stream" } });
    const reader = (open.body as ReadableStream<Uint8Array>).getReader();
    await running?.stop(5_000);
    for (let read = await reader.read(); !read.done; read = await reader.read());
    running = undefined;
    await start();
    expect(await json<Page>(keys.alpha, "/v1/events")).toEqual(before);
    expect((await json<Page>(keys.alpha, `/v1/events?after=${before.nextAfter}`)).events).toEqual([]);
    const next = await submit(keys.alpha, { team: "red" });
    await ended(keys.alpha, next);
    const after = await json<Page>(keys.alpha, `/v1/events?after=${before.nextAfter}`);
    expect(after.events.map((entry) => [entry.runId, entry.type])).toEqual([
      [next, "run.queued"],
      [next, "run.started"],
      [next, "run.finished"],
    ]);
    expect(after.events[0]?.id).toBeGreaterThan(before.nextAfter);
  }, 120_000);

  it("streams a run.finished as it happens, after a Last-Event-ID", async () => {
    const last = (await json<Page>(keys.alpha, "/v1/events")).nextAfter;
    let live = "";
    const events = await streamed(keys.alpha, "/v1/events", {
      headers: { "last-event-id": String(last) },
      until: (seen) => seen.some((entry) => entry.runId === live && entry.type === "run.finished"),
      // The stand-in's Run takes seconds; three times that and the start of a container.
      timeoutMs: 90_000,
      opened: async () => {
        live = await submit(keys.alpha, { team: "green" });
        // And beta's Run, meanwhile: never in alpha's stream.
        await ended(keys.beta, await submit(keys.beta, {}));
      },
    });
    expect(events.every((entry) => entry.tenant === "alpha" && entry.id > last)).toBe(true);
    expect(events.map((entry) => [entry.runId, entry.type])).toEqual([
      [live, "run.queued"],
      [live, "run.started"],
      [live, "run.finished"],
    ]);
  }, 120_000);
});
