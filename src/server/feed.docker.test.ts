// The events feed and the usage figures over real HTTP, against the real service and engine with the
// stand-in model and two tenants: each tenant's feed holds its own Runs' lifecycle and none of the
// other's (by JSON page, by cursor, by SSE), the feed outlives a restart with its numbering going on,
// a stream delivers a run.finished as it happens, and each tenant's usage counts its Runs alone.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturingLogger } from "../../test/support/engine.js";
import type { FeedEntry } from "./feed.js";
import { serve, type RunningService } from "./index.js";

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
  let betaRun = "";

  it("shows a tenant its own Runs' queued, started and finished, and none of the other tenant's", async () => {
    alphaRun = await submit(keys.alpha, { team: "red" });
    betaRun = await submit(keys.beta, { team: "blue" });
    await ended(keys.alpha, alphaRun);
    await ended(keys.beta, betaRun);
    const alpha = await json<Page>(keys.alpha, "/v1/events");
    expect(alpha.events.map((entry) => entry.type)).toEqual(["run.queued", "run.started", "run.finished"]);
    expect(alpha.events.every((entry) => entry.runId === alphaRun && entry.tenant === "alpha")).toBe(true);
    expect(alpha.nextAfter).toBe(alpha.events.at(-1)?.id);
    const finished = alpha.events.at(-1) as FeedEntry;
    expect(finished.data).toMatchObject({ state: "completed", labels: { team: "red" }, reason: "completed" });
    expect(JSON.stringify(alpha)).not.toContain("capital of France");
    const beta = await json<Page>(keys.beta, "/v1/events");
    expect(beta.events.map((entry) => entry.runId)).toEqual([betaRun, betaRun, betaRun]);
    // Paged: one at a time, each page after the one before.
    const first = await json<Page>(keys.alpha, "/v1/events?limit=1");
    const second = await json<Page>(keys.alpha, `/v1/events?limit=1&after=${first.nextAfter}`);
    expect([...first.events, ...second.events].map((entry) => entry.type)).toEqual(["run.queued", "run.started"]);
    // The operator (admin) sees both, and one with ?tenant=.
    const all = await json<Page>(TOKEN, "/v1/events");
    expect(new Set(all.events.map((entry) => entry.tenant))).toEqual(new Set(["alpha", "beta"]));
    expect((await json<Page>(TOKEN, "/v1/events?tenant=beta")).events.map((entry) => entry.runId)).toEqual([betaRun, betaRun, betaRun]);
  }, 120_000);

  it("tells a tenant nothing of another's events, by ?tenant= or by cursor", async () => {
    const asked = await call(keys.alpha, "/v1/events?tenant=beta");
    expect(asked.status).toBe(403);
    expect(((await asked.json()) as { error: string }).error).toBe("forbidden");
    const betaIds = (await json<Page>(keys.beta, "/v1/events")).events.map((entry) => entry.id);
    // A cursor just before each of beta's entries still answers alpha's alone.
    for (const id of betaIds) {
      const page = await json<Page>(keys.alpha, `/v1/events?after=${id - 1}`);
      expect(page.events.every((entry) => entry.tenant === "alpha")).toBe(true);
    }
    const ahead = await call(keys.alpha, "/v1/events?after=1000000");
    expect(ahead.status).toBe(400);
    expect(((await ahead.json()) as { message: string }).message).toContain("after 1000000 is past the newest event");
    // A stream of alpha's replays alpha's alone.
    const replayed = await streamed(keys.alpha, "/v1/events?after=0", { until: (events) => events.length >= 3, timeoutMs: 3_000 });
    expect(replayed.map((entry) => [entry.runId, entry.type])).toEqual([
      [alphaRun, "run.queued"],
      [alphaRun, "run.started"],
      [alphaRun, "run.finished"],
    ]);
  }, 30_000);

  it("counts each tenant's ended Runs in its usage, and never the other's", async () => {
    const alpha = await json<Usage>(keys.alpha, "/v1/usage");
    expect(alpha.tenants.map((usage) => usage.tenant)).toEqual(["alpha"]);
    const [own] = alpha.tenants;
    expect(own).toMatchObject({ runs: 1, reasons: { completed: 1 }, labels: { "team=red": { runs: 1 } } });
    expect(own?.labels["team=blue"]).toBeUndefined();
    // What the stand-in reported, the record's figures: the same in the feed's run.finished.
    const finished = (await json<Page>(keys.alpha, "/v1/events")).events.find((entry) => entry.type === "run.finished") as FeedEntry;
    // The stand-in reports tokens as a provider does: the figures are there to count.
    expect(own?.inputTokens).toBeGreaterThan(0);
    expect(own?.inputTokens).toBe(finished.data.inputTokens);
    expect(own?.outputTokens).toBe(finished.data.outputTokens ?? 0);
    expect(own?.costUsd).toBe(finished.data.costUsd ?? 0);
    const beta = await json<Usage>(keys.beta, "/v1/usage");
    expect(beta.tenants.map((usage) => [usage.tenant, usage.runs, Object.keys(usage.labels)])).toEqual([["beta", 1, ["team=blue"]]]);
    expect((await call(keys.beta, "/v1/usage?tenant=alpha")).status).toBe(403);
    const everyone = await json<Usage>(TOKEN, "/v1/usage");
    expect(everyone.tenants.map((usage) => [usage.tenant, usage.runs])).toEqual([
      ["alpha", 1],
      ["beta", 1],
    ]);
    // Since a time to come: nothing ended yet.
    const later = await json<Usage>(keys.alpha, `/v1/usage?since=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(later.tenants).toEqual([expect.objectContaining({ tenant: "alpha", runs: 0 })]);
  });

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
