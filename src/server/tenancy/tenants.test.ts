// Attacks on the service's tenancy through the real app over the in-memory store and scripted Runs
// (route logic: no engine): one tenant reaching another's Runs by id, list, label, cursor, idempotency
// key and session. (A flood of wrong keys and a key's secret looked for everywhere a real service
// writes: tenants.docker.test.ts; quotas: tenant-quotas.test.ts; a key's scope, its revocation and
// expiry: route-keys.test.ts.)

import { randomBytes, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { type Answer, scriptedRunner, useAppInMemory } from "../../../test/support/app.js";

const WRITTEN = "written by the stand-in model\n";
const svc = useAppInMemory("tenants", {
  slots: 2,
  queueBound: 20,
  sessions: true,
  runner: scriptedRunner((prompt) =>
    prompt.startsWith("hang")
      ? { events: [{ type: "init", sessionId: randomUUID() }], untilCancelled: true }
      : {
          harvest: prompt.startsWith("write") ? { "answer.txt": WRITTEN } : {},
          outcome: {
            result: {
              ok: true,
              reason: "completed",
              text: "Paris",
              sessionId: randomUUID(),
              usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
              costUsd: 0.001,
            },
          },
        },
  ),
});
/** A well-formed Run id that names no Run. */
const UNKNOWN = "0123456789abcdef";
let aWrite = "";
let aRead = "";
let bWrite = "";
let admin = "";

const same = (answer: Answer, unknown: Answer, id?: string) => {
  expect(answer.status).toBe(unknown.status);
  expect(id === undefined ? answer.text : answer.text.replaceAll(id, "<id>")).toBe(id === undefined ? unknown.text : unknown.text.replaceAll(UNKNOWN, "<id>"));
};

beforeAll(async () => {
  [aWrite, aRead, bWrite, admin] = await Promise.all([
    svc.makeKey("a", "runs:write"),
    svc.makeKey("a", "runs:read"),
    svc.makeKey("b", "runs:write"),
    svc.makeKey("ops", "admin"),
  ]);
});

describe("one tenant against another's Runs", () => {
  it("answers another tenant's Run exactly as an unknown id, on every route, and lists, filters and pages only the caller's own", async () => {
    const [bRun, aRun] = await Promise.all([
      svc.submit(bWrite, { prompt: "write out/answer.txt", maxTurns: 10, timeoutSeconds: 60, labels: { suite: "iso" } }),
      svc.submit(aWrite, { prompt: "What is the capital of France?", timeoutSeconds: 60, labels: { suite: "iso" } }),
    ]);
    const [bEnded] = await Promise.all([svc.ended(bWrite, bRun), svc.ended(aWrite, aRun)]);
    expect(bEnded).toMatchObject({ state: "completed" });
    expect((await svc.call(bWrite, `/v1/runs/${bRun}/artifacts`)).json()["files"]).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "answer.txt" })]),
    );

    const routes: Array<[method: string, path: (id: string) => string]> = [
      ["GET", (id) => `/v1/runs/${id}`],
      ["GET", (id) => `/v1/runs/${id}/events`],
      ["GET", (id) => `/v1/runs/${id}/artifacts`],
      ["GET", (id) => `/v1/runs/${id}/artifacts/answer.txt`],
      ["GET", (id) => `/v1/runs/${id}/artifacts.tar`],
      ["POST", (id) => `/v1/runs/${id}/cancel`],
      ["DELETE", (id) => `/v1/runs/${id}`],
    ];
    for (const key of [aWrite, aRead]) {
      for (const [method, path] of routes) {
        const unknown = await svc.call(key, path(UNKNOWN), { method });
        const theirs = await svc.call(key, path(bRun), { method });
        expect(unknown.status, `${method} ${path(UNKNOWN)}`).toBe(key === aRead && method !== "GET" ? 403 : 404);
        expect(theirs.status, `${method} ${path(bRun)}`).not.toBe(200);
        same(theirs, unknown, bRun);
      }
    }
    // B's Run is as it was: not cancelled, not deleted, its artifacts whole.
    expect((await svc.call(bWrite, `/v1/runs/${bRun}`)).json()).toMatchObject({ state: "completed" });
    expect((await svc.call(bWrite, `/v1/runs/${bRun}/artifacts/answer.txt`)).text).toBe(WRITTEN);

    const ids = (answer: Answer) => (answer.json()["runs"] as Array<{ id: string }>).map((r) => r.id);
    for (const key of [aWrite, aRead]) {
      expect(ids(await svc.call(key, "/v1/runs"))).toEqual([aRun]);
      expect(ids(await svc.call(key, "/v1/runs?label=suite%3Diso"))).toEqual([aRun]);
      expect(ids(await svc.call(key, "/v1/runs?label=suite%3Diso&state=completed&limit=100"))).toEqual([aRun]);
      same(await svc.call(key, `/v1/runs?cursor=${bRun}`), await svc.call(key, `/v1/runs?cursor=${UNKNOWN}`), bRun);
    }
    expect(ids(await svc.call(bWrite, "/v1/runs?label=suite%3Diso"))).toEqual([bRun]);
    // The admin scope sees every tenant's.
    expect(ids(await svc.call(admin, "/v1/runs?label=suite%3Diso")).sort()).toEqual([aRun, bRun].sort());
    expect((await svc.call(admin, `/v1/runs/${bRun}`)).status).toBe(200);

    // B's session is B's: A resuming it is refused exactly as a session that never was.
    const sessionId = (bEnded["outcome"] as { result: { sessionId: string } }).result.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    const never = randomUUID();
    const resume = (id: string) => svc.call(aWrite, "/v1/runs", { method: "POST", body: { cli: "claude", prompt: "SECOND-TURN", resumeSession: id } });
    const theirs = await resume(sessionId);
    const unknown = await resume(never);
    expect(theirs.status).toBe(400);
    expect(theirs.status).toBe(unknown.status);
    expect(theirs.text.replaceAll(sessionId, "<s>")).toBe(unknown.text.replaceAll(never, "<s>"));
    expect(ids(await svc.call(aWrite, "/v1/runs"))).toEqual([aRun]);
  });

  it("files an Idempotency-Key per tenant: the same key makes each tenant its own Run, and a live Run of B's cannot be cancelled by A", async () => {
    const key = `shared-${randomBytes(4).toString("hex")}`;
    const body = { prompt: "hang: never answered", timeoutSeconds: 30 };
    const aRun = await svc.submit(aWrite, body, { "idempotency-key": key });
    const bRun = await svc.submit(bWrite, body, { "idempotency-key": key });
    expect(bRun).not.toBe(aRun);
    const again = await svc.call(aWrite, "/v1/runs", { method: "POST", body: { cli: "claude", ...body }, headers: { "idempotency-key": key } });
    expect(again.status).toBe(200);
    expect(again.json()["id"]).toBe(aRun);
    const bAgain = await svc.call(bWrite, "/v1/runs", {
      method: "POST",
      body: { cli: "claude", ...body },
      headers: { "idempotency-key": key },
    });
    expect(bAgain.json()["id"]).toBe(bRun);

    // A live Run of B's, cancelled or deleted by A: not there, and B's Run goes on.
    same(await svc.call(aWrite, `/v1/runs/${bRun}/cancel`, { method: "POST" }), await svc.call(aWrite, `/v1/runs/${UNKNOWN}/cancel`, { method: "POST" }), bRun);
    same(await svc.call(aWrite, `/v1/runs/${bRun}`, { method: "DELETE" }), await svc.call(aWrite, `/v1/runs/${UNKNOWN}`, { method: "DELETE" }), bRun);
    expect(["queued", "starting", "running"]).toContain((await svc.call(bWrite, `/v1/runs/${bRun}`)).json()["state"]);
    for (const [owner, id] of [
      [aWrite, aRun],
      [bWrite, bRun],
    ] as const)
      expect((await svc.call(owner, `/v1/runs/${id}/cancel`, { method: "POST" })).status).toBe(200);
    await Promise.all([svc.ended(aWrite, aRun), svc.ended(bWrite, bRun)]);
  });
});
