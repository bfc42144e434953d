// Attacks on the tenants' quotas through the real app over the in-memory store, with one slot and
// scripted Runs (a `hang` prompt runs until cancelled): route and queue logic, no engine. A tenant
// past max_queued or its daily spend is refused 429 naming the quota and when to try again, and a
// tenant's backlog never holds another tenant's Run back from the next free slot.

import { beforeAll, describe, expect, it } from "vitest";
import { scriptedRunner, useAppInMemory } from "../../../test/support/app.js";

const svc = useAppInMemory("tenant-quotas", {
  slots: 1,
  queueBound: 20,
  runner: scriptedRunner((prompt) => (prompt.startsWith("hang") ? { events: [{ type: "init", sessionId: "s" }], untilCancelled: true } : {})),
});
const HANG = { prompt: "hang: never answered", timeoutSeconds: 60 };
let aWrite = "";
let bWrite = "";

const setQuotas = async (tenant: string, quotas: Record<string, number | null>) => {
  const changed = await svc.call(svc.token, `/v1/tenants/${tenant}`, { method: "PUT", body: quotas });
  expect(changed.status, changed.text).toBe(200);
};
const cancelAll = async (key: string, ids: readonly string[]) => {
  for (const id of ids) expect((await svc.call(key, `/v1/runs/${id}/cancel`, { method: "POST" })).status).toBe(200);
  for (const id of ids) await svc.ended(key, id);
};

beforeAll(async () => {
  aWrite = await svc.makeKey("a", "runs:write");
  bWrite = await svc.makeKey("b", "runs:write");
});

describe("a tenant's quotas", () => {
  it("refuses a third Run while two are live at max_queued 2, with Retry-After, and takes one again once one has ended", async () => {
    await setQuotas("a", { maxQueued: 2 });
    const live = [await svc.submit(aWrite, HANG), await svc.submit(aWrite, HANG)];
    const third = await svc.call(aWrite, "/v1/runs", { method: "POST", body: { cli: "claude", ...HANG } });
    expect(third.status).toBe(429);
    expect(Number(third.headers["retry-after"])).toBeGreaterThan(0);
    expect(third.json()).toMatchObject({ error: "quota_exceeded", quota: "max_queued", limit: 2, used: 2, message: expect.stringContaining("max_queued") });
    // Another tenant is not held by A's quota.
    const theirs = await svc.submit(bWrite, HANG);
    await cancelAll(aWrite, live.slice(0, 1));
    const after = await svc.submit(aWrite, HANG);
    await cancelAll(aWrite, [live[1] as string, after]);
    await cancelAll(bWrite, [theirs]);
    await setQuotas("a", { maxQueued: null });
  });

  it("refuses a Run past the daily spend, until midnight UTC", async () => {
    await setQuotas("a", { dailySpendUsd: 0 });
    const refused = await svc.call(aWrite, "/v1/runs", { method: "POST", body: { cli: "claude", ...HANG } });
    const now = Date.now();
    expect(refused.status).toBe(429);
    expect(refused.json()).toMatchObject({ error: "quota_exceeded", quota: "daily_spend_usd", limit: 0 });
    const toMidnight = Math.ceil((86_400_000 - (now % 86_400_000)) / 1000);
    expect(Math.abs(Number(refused.headers["retry-after"]) - toMidnight)).toBeLessThanOrEqual(5);
    await setQuotas("a", { dailySpendUsd: null });
  });
});

describe("a fair share of the slots", () => {
  it("starts B's one Run before A's backlog when A's running Run ends", async () => {
    const aRuns: string[] = [];
    for (let n = 0; n < 4; n += 1) aRuns.push(await svc.submit(aWrite, HANG));
    await svc.reaches(aWrite, aRuns[0] as string, ["running"]);
    const bRun = await svc.submit(bWrite, HANG);
    expect((await svc.call(bWrite, `/v1/runs/${bRun}`)).json()["state"]).toBe("queued");
    expect((await svc.call(aWrite, `/v1/runs/${aRuns[0]}/cancel`, { method: "POST" })).status).toBe(200);
    await svc.reaches(bWrite, bRun, ["starting", "running"]);
    for (const id of aRuns.slice(1)) expect((await svc.call(aWrite, `/v1/runs/${id}`)).json()["state"]).toBe("queued");
    await cancelAll(bWrite, [bRun]);
    // Then A's, oldest first.
    await svc.reaches(aWrite, aRuns[1] as string, ["starting", "running"]);
    await cancelAll(aWrite, aRuns);
  });
});
