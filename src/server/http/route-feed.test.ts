// GET /v1/events and GET /v1/usage with two tenants, through the real app over the in-memory store and
// scripted Runs (route logic: no engine): each tenant's feed holds its own Runs' lifecycle and none of
// the other's (by page, by ?tenant=, by cursor), and each tenant's usage counts its Runs alone. What
// needs the engine (a real Run's figures, a restart, a live stream) is feed.docker.test.ts's.

import { beforeAll, describe, expect, it } from "vitest";
import { useAppInMemory, scriptedRunner } from "../../../test/support/app.js";
import type { FeedEntry } from "../runs/index.js";

const service = useAppInMemory("route-feed", {
  // Each tenant's Runs report figures of their own, to tell one tenant's usage from the other's.
  runner: scriptedRunner((prompt) => ({
    outcome: prompt.startsWith("beta")
      ? {
          result: {
            ok: true,
            reason: "completed",
            text: "Paris",
            usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
            costUsd: 0.5,
          },
        }
      : {},
  })),
});
const keys = { alpha: "", beta: "" };
type Page = { events: FeedEntry[]; nextAfter: number };
type Usage = {
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
const json = async <T>(key: string, path: string): Promise<T> => {
  const answer = await service.call(key, path);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  return answer.json() as T;
};
let alphaRun = "";
let betaRun = "";

beforeAll(async () => {
  keys.alpha = await service.makeKey("alpha", "runs:write");
  keys.beta = await service.makeKey("beta", "runs:write");
  alphaRun = await service.submit(keys.alpha, { prompt: "alpha: What is the capital of France?", labels: { team: "red" } });
  betaRun = await service.submit(keys.beta, { prompt: "beta: What is the capital of France?", labels: { team: "blue" } });
  await service.ended(keys.alpha, alphaRun);
  await service.ended(keys.beta, betaRun);
});

describe("GET /v1/events with two tenants", () => {
  it("shows a tenant its own Runs' queued, started and finished, and none of the other tenant's", async () => {
    const alpha = await json<Page>(keys.alpha, "/v1/events");
    expect(alpha.events.map((entry) => entry.type)).toEqual(["run.queued", "run.started", "run.finished"]);
    expect(alpha.events.every((entry) => entry.runId === alphaRun && entry.tenant === "alpha")).toBe(true);
    expect(alpha.nextAfter).toBe(alpha.events.at(-1)?.id);
    expect(alpha.events.at(-1)?.data).toMatchObject({ state: "completed", labels: { team: "red" }, reason: "completed", inputTokens: 100, outputTokens: 20 });
    expect(JSON.stringify(alpha)).not.toContain("capital of France");
    const beta = await json<Page>(keys.beta, "/v1/events");
    expect(beta.events.map((entry) => entry.runId)).toEqual([betaRun, betaRun, betaRun]);
    // Paged: one at a time, each page after the one before.
    const first = await json<Page>(keys.alpha, "/v1/events?limit=1");
    const second = await json<Page>(keys.alpha, `/v1/events?limit=1&after=${first.nextAfter}`);
    expect([...first.events, ...second.events].map((entry) => entry.type)).toEqual(["run.queued", "run.started"]);
    // The operator (admin) sees both, and one with ?tenant=.
    const all = await json<Page>(service.token, "/v1/events");
    expect(new Set(all.events.map((entry) => entry.tenant))).toEqual(new Set(["alpha", "beta"]));
    expect((await json<Page>(service.token, "/v1/events?tenant=beta")).events.map((entry) => entry.runId)).toEqual([betaRun, betaRun, betaRun]);
  });

  it("tells a tenant nothing of another's events, by ?tenant= or by cursor", async () => {
    const asked = await service.call(keys.alpha, "/v1/events?tenant=beta");
    expect(asked.status).toBe(403);
    expect(asked.json()["error"]).toBe("forbidden");
    const betaIds = (await json<Page>(keys.beta, "/v1/events")).events.map((entry) => entry.id);
    // A cursor just before each of beta's entries still answers alpha's alone.
    for (const id of betaIds) {
      const page = await json<Page>(keys.alpha, `/v1/events?after=${id - 1}`);
      expect(page.events.every((entry) => entry.tenant === "alpha")).toBe(true);
    }
    const ahead = await service.call(keys.alpha, "/v1/events?after=1000000");
    expect(ahead.status).toBe(400);
    expect(ahead.json()["message"]).toContain("after 1000000 is past the newest event");
  });
});

describe("GET /v1/usage with two tenants", () => {
  it("counts each tenant's ended Runs in its usage, and never the other's", async () => {
    const alpha = await json<Usage>(keys.alpha, "/v1/usage");
    expect(alpha.tenants.map((usage) => usage.tenant)).toEqual(["alpha"]);
    const [own] = alpha.tenants;
    expect(own).toMatchObject({ runs: 1, reasons: { completed: 1 }, labels: { "team=red": { runs: 1 } }, inputTokens: 100, outputTokens: 20, costUsd: 0.001 });
    expect(own?.labels["team=blue"]).toBeUndefined();
    const beta = await json<Usage>(keys.beta, "/v1/usage");
    expect(beta.tenants.map((usage) => [usage.tenant, usage.runs, usage.inputTokens, usage.costUsd, Object.keys(usage.labels)])).toEqual([
      ["beta", 1, 7, 0.5, ["team=blue"]],
    ]);
    expect((await service.call(keys.beta, "/v1/usage?tenant=alpha")).status).toBe(403);
    const everyone = await json<Usage>(service.token, "/v1/usage");
    expect(everyone.tenants.map((usage) => [usage.tenant, usage.runs])).toEqual([
      ["alpha", 1],
      ["beta", 1],
    ]);
    // Since a time to come: nothing ended yet.
    const later = await json<Usage>(keys.alpha, `/v1/usage?since=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(later.tenants).toEqual([expect.objectContaining({ tenant: "alpha", runs: 0 })]);
  });
});
