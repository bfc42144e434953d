// Attacks on the service's tenancy over real HTTP, against a real service and engine with the
// stand-in model: a flood of wrong keys, and a key's secret looked for everywhere the service writes
// (its log, every file under its runtime directory) or answers. (One tenant against another's Runs:
// tenants.test.ts; quotas: tenant-quotas.test.ts; a key's scope, its revocation and expiry:
// route-keys.test.ts; all route logic.)

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useTenantService } from "../../../test/support/tenants.js";

const svc = useTenantService("tenants", { slots: 2, queueBound: 20, sessions: true });
/** A well-formed Run id that names no Run. */
const UNKNOWN = "0123456789abcdef";
/** Every key made here, whole: none of it may appear anywhere the service writes or answers. */
const made: string[] = [];
let aWrite = "";

beforeAll(async () => {
  const keys = await Promise.all([svc.makeKey("a", "runs:write"), svc.makeKey("a", "runs:read"), svc.makeKey("b", "runs:write"), svc.makeKey("ops", "admin")]);
  aWrite = (keys[0] as { key: string }).key;
  made.push(...keys.map((k) => k.key));
  // What a real Run of another tenant leaves (its record, its Harvest, its session): more places a secret could be.
  const bWrite = (keys[2] as { key: string }).key;
  const bRun = await svc.submit(bWrite, { prompt: "[stand-in:tool_write_bash] write out/answer.txt", maxTurns: 10, timeoutSeconds: 60 });
  expect(await svc.ended(bWrite, bRun)).toMatchObject({ state: "completed" });
}, 150_000);

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
