// A key's scope and its life, through the real app over the in-memory store and scripted Runs (route
// logic: no engine): runs:read reads and nothing more; keys, tenants and the audit log are the admin
// scope's; a revoked key is refused at its very next request, an expired one once it is past. The
// attacks that need a real service (a flood of wrong keys, a secret looked for on disk) are
// tenants.docker.test.ts's.

import { beforeAll, describe, expect, it } from "vitest";
import { useAppInMemory } from "../../../test/support/app.js";

const svc = useAppInMemory("route-keys");
let aWrite = "";
let aRead = "";
let bWrite = "";
let admin = "";

beforeAll(async () => {
  [aWrite, aRead, bWrite, admin] = await Promise.all([
    svc.makeKey("a", "runs:write"),
    svc.makeKey("a", "runs:read"),
    svc.makeKey("b", "runs:write"),
    svc.makeKey("ops", "admin"),
  ]);
});

describe("a key's scope", () => {
  it("lets runs:read read and nothing more, and keeps keys, tenants and the audit log to the admin scope", async () => {
    const aRun = await svc.submit(aWrite, { prompt: "What is the capital of France?" });
    await svc.ended(aWrite, aRun);
    expect((await svc.call(aRead, `/v1/runs/${aRun}`)).status).toBe(200);
    for (const [method, path] of [
      ["POST", "/v1/runs"],
      ["POST", `/v1/runs/${aRun}/cancel`],
      ["DELETE", `/v1/runs/${aRun}`],
    ] as const) {
      const body = method === "POST" && path === "/v1/runs" ? { cli: "claude", prompt: "hi" } : undefined;
      const refused = await svc.call(aRead, path, { method, ...(body === undefined ? {} : { body }) });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.json()).toMatchObject({ error: "forbidden", message: expect.stringContaining("runs:write") });
    }
    expect((await svc.call(aRead, `/v1/runs/${aRun}`)).json()).toMatchObject({ state: "completed" });
    for (const key of [aRead, aWrite, bWrite]) {
      for (const [method, path, body] of [
        ["GET", "/v1/keys", undefined],
        ["POST", "/v1/keys", { tenant: "a", scope: "admin" }],
        ["DELETE", "/v1/keys/0123456789ab", undefined],
        ["GET", "/v1/tenants", undefined],
        ["GET", "/v1/tenants/b", undefined],
        ["PUT", "/v1/tenants/a", { maxQueued: 1000 }],
        ["GET", "/v1/audit", undefined],
      ] as const) {
        const refused = await svc.call(key, path, { method, ...(body === undefined ? {} : { body }) });
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(refused.json()).toMatchObject({ error: "forbidden", message: expect.stringContaining("admin") });
      }
    }
    expect((await svc.call(admin, "/v1/tenants")).status).toBe(200);
    // Each refusal of a known key is in the audit log, naming what it asked and the scope that needs.
    const entries = (await svc.call(admin, "/v1/audit")).json()["entries"] as Array<{ action: string; tenant?: string; result: string }>;
    expect(entries.filter((e) => e.action === "auth.refused" && e.tenant === "a" && e.result === "scope: needs admin").length).toBeGreaterThanOrEqual(14);
  });
});

describe("a key's life", () => {
  it("refuses a revoked key at its very next request, and an expired one", async () => {
    const revoked = await svc.makeKey("a", "runs:write");
    const expiresAt = Date.now() + 1_000;
    const soon = (
      await svc.call(svc.token, "/v1/keys", { method: "POST", body: { tenant: "a", scope: "runs:read", expiresAt: new Date(expiresAt).toISOString() } })
    ).json();
    expect((await svc.call(revoked, "/v1/runs")).status).toBe(200);
    expect((await svc.call(soon["key"] as string, "/v1/runs")).status).toBe(200);
    const prefix = revoked.split("_")[1] as string;
    expect((await svc.call(svc.token, `/v1/keys/${prefix}`, { method: "DELETE" })).status).toBe(200);
    const next = await svc.call(revoked, "/v1/runs");
    expect(next.status).toBe(401);
    expect(next.json()).toMatchObject({ error: "unauthorized", message: expect.stringContaining("revoked") });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt + 100 - Date.now())));
    const late = await svc.call(soon["key"] as string, "/v1/runs");
    expect(late.status).toBe(401);
    expect(late.json()).toMatchObject({ error: "unauthorized", message: expect.stringContaining("expired") });
  });
});
