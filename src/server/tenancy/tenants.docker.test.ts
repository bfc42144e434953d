// Attacks on the service's tenancy over real HTTP, against a real service and engine with the
// stand-in model: one tenant reaching another's Runs by id, list, label, cursor, idempotency key and
// session; a flood of wrong keys; and a key's secret looked for everywhere the service writes or
// answers. (Quotas: tenant-quotas.test.ts; a key's scope, its revocation and expiry, route
// logic: route-keys.test.ts.)

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTenantService, type Answer } from "../../../test/support/tenants.js";

const svc = useTenantService("tenants", { slots: 2, queueBound: 20, sessions: true });
/** A well-formed Run id that names no Run. */
const UNKNOWN = "0123456789abcdef";
/** Every key made here, whole: none of it may appear anywhere the service writes or answers. */
const made: string[] = [];
let aWrite = "";
let aRead = "";
let bWrite = "";
let admin = "";

const same = (answer: Answer, unknown: Answer, id?: string) => {
  expect(answer.status).toBe(unknown.status);
  expect(id === undefined ? answer.text : answer.text.replaceAll(id, "<id>")).toBe(id === undefined ? unknown.text : unknown.text.replaceAll(UNKNOWN, "<id>"));
};

beforeAll(async () => {
  const keys = await Promise.all([svc.makeKey("a", "runs:write"), svc.makeKey("a", "runs:read"), svc.makeKey("b", "runs:write"), svc.makeKey("ops", "admin")]);
  [aWrite, aRead, bWrite, admin] = keys.map((k) => k.key) as [string, string, string, string];
  made.push(...keys.map((k) => k.key));
}, 60_000);

describe("one tenant against another's Runs", () => {
  it("answers another tenant's Run exactly as an unknown id, on every route, and lists, filters and pages only the caller's own", async () => {
    const [bRun, aRun] = await Promise.all([
      svc.submit(bWrite, { prompt: "[stand-in:tool_write_bash] write out/answer.txt", maxTurns: 10, timeoutSeconds: 60, labels: { suite: "iso" } }),
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
    expect((await svc.call(bWrite, `/v1/runs/${bRun}/artifacts/answer.txt`)).text).toBe("written by the stand-in model\n");

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
    const resume = (id: string) =>
      svc.call(aWrite, "/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "SECOND-TURN", resumeSession: id }) });
    const theirs = await resume(sessionId);
    const unknown = await resume(never);
    expect(theirs.status).toBe(400);
    expect(theirs.status).toBe(unknown.status);
    expect(theirs.text.replaceAll(sessionId, "<s>")).toBe(unknown.text.replaceAll(never, "<s>"));
    expect(ids(await svc.call(aWrite, "/v1/runs"))).toEqual([aRun]);
  }, 150_000);

  it("files an Idempotency-Key per tenant: the same key makes each tenant its own Run, and a live Run of B's cannot be cancelled by A", async () => {
    const key = `shared-${randomBytes(4).toString("hex")}`;
    const body = { prompt: "[stand-in:hang] never answered", timeoutSeconds: 30 };
    const aRun = await svc.submit(aWrite, body, { "idempotency-key": key });
    const bRun = await svc.submit(bWrite, body, { "idempotency-key": key });
    expect(bRun).not.toBe(aRun);
    const again = await svc.call(aWrite, "/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", ...body }), headers: { "idempotency-key": key } });
    expect(again.status).toBe(200);
    expect(again.json()["id"]).toBe(aRun);
    const bAgain = await svc.call(bWrite, "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "claude", ...body }),
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
  }, 90_000);
});

describe("a key's life", () => {
  it("stays healthy under 1,000 wrong keys, and folds them into a handful of audit entries", async () => {
    const auditFile = join(svc.runtimeDir, "service", "audit.jsonl");
    const lines = () =>
      readFileSync(auditFile, "utf8")
        .split("\n")
        .filter((l) => l !== "").length;
    expect((await svc.call(svc.operator(), "/v1/audit")).status).toBe(200); // flushes what is folded so far
    const before = lines();
    const bearers = Array.from({ length: 1_000 }, (_, i) =>
      i % 2 === 0
        ? `ac_${randomBytes(6).toString("hex")}_${randomBytes(32).toString("base64url")}`
        : ([`garbage-${i}`, "ac_", "ac_zzzzzzzzzzzz_x", randomBytes(64).toString("base64"), "x".repeat(4_000), wrongLast(aWrite)][i % 6] as string),
    );
    const started = performance.now();
    const statuses: number[] = [];
    for (let at = 0; at < bearers.length; at += 20) {
      const batch = bearers.slice(at, at + 20);
      statuses.push(
        ...(await Promise.all(
          batch.map(async (bearer) => (await fetch(`${svc.running().url}/v1/runs`, { headers: { authorization: `Bearer ${bearer}` } })).status),
        )),
      );
    }
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(30_000);

    expect((await fetch(`${svc.running().url}/healthz`)).status).toBe(200);
    const asked = performance.now();
    expect((await svc.call(aWrite, "/v1/runs")).status).toBe(200);
    expect(performance.now() - asked).toBeLessThan(1_000);
    const run = await svc.submit(aWrite, { prompt: "What is the capital of France?", timeoutSeconds: 60 });
    expect(await svc.ended(aWrite, run)).toMatchObject({ state: "completed" });

    const entries = (await svc.call(svc.operator(), "/v1/audit")).json()["entries"] as Array<{ action: string; count?: number }>;
    const grown = lines() - before;
    // The first refusal is written at once, the rest folded into one entry with their count; plus the Run made.
    expect(grown).toBeGreaterThanOrEqual(2);
    expect(grown).toBeLessThanOrEqual(6);
    expect(entries.filter((e) => e.action === "auth.refused").reduce((sum, e) => sum + (e.count ?? 1), 0)).toBeGreaterThanOrEqual(1_000);
  }, 120_000);
});

describe("a key's secret", () => {
  it("appears in no log line, no file under the runtime directory, no metrics, no error body and no audit entry", async () => {
    // Use every key once more, failing too, so each has had its chance to leak.
    for (const key of made) await svc.call(key, `/v1/runs/${UNKNOWN}`);
    for (const key of made) await svc.call(`${key}x`, "/v1/runs");
    const metrics = (await svc.call(svc.operator(), "/metrics")).text;
    const audit = (await svc.call(svc.operator(), "/v1/audit")).text;
    const keysListed = (await svc.call(svc.operator(), "/v1/keys")).text;
    await svc.stop(); // writes the last uses and the folded refusals
    const files = filesUnder(svc.runtimeDir);
    expect(files.some((f) => f.endsWith("keys.json"))).toBe(true);
    const keysFile = readFileSync(files.find((f) => f.endsWith("keys.json")) as string, "utf8");
    const stored = (JSON.parse(keysFile) as { keys: Array<Record<string, unknown>> }).keys;
    expect(stored.length).toBe(made.length);
    for (const key of stored) expect(key["hash"]).toMatch(/^[0-9a-f]{64}$/);

    // The secret is all after `ac_<12 hex>_`: it may hold `_` itself.
    const secrets = made.flatMap((key) => [key, key.slice("ac_".length + 12 + 1)]);
    const places: Array<[string, string]> = [
      ["the log", svc.logLines.join("\n")],
      ["/metrics", metrics],
      ["the audit log", audit],
      ["GET /v1/keys", keysListed],
      // Every answer but the ones that made a key (whose answer is the one place it is shown).
      ["an answer", svc.bodies.filter((body) => !body.startsWith('{"prefix":')).join("\n")],
      ...files.map((file) => [file, readFileSync(file).toString("latin1")] as [string, string]),
    ];
    for (const secret of secrets) for (const [where, text] of places) expect(text.includes(secret), `${where} holds a key's secret`).toBe(false);
  }, 60_000);
});

/** Every regular file under `root`, following no link. */
function filesUnder(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (entry.isFile() && statSync(path).size < 64 * 1024 * 1024) found.push(path);
  }
  return found;
}

/** The key with its last character changed: a base64url key of 32 bytes ends in one of 16 characters, so "A" is the key itself one time in 16. */
function wrongLast(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
}
