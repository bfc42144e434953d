// What an operator's console reads, through the real app over the in-memory store and scripted Runs
// (route logic: no engine): GET /v1/runs by CLI and by tenant, each Run with its CLI, model, start and
// end; GET /v1/service as the admin sees it and as a tenant does (its own figures only); and no
// secret (the Operator's token, a key) in either answer. The real egress proxy and runner as
// GET /v1/service shows them are service-status.docker.test.ts's.

import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { type Answer, scriptedRunner, useAppInMemory } from "../../../test/support/app.js";

const VERSION = (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
/** The deployment's egress proxy as serve would describe it: its container is the admin's to see. */
const PROXY = "agentcage-egress-status-test";
const svc = useAppInMemory("service-status", {
  slots: 2,
  runner: scriptedRunner((prompt) => ({ events: [{ type: "init", sessionId: "s" }], untilCancelled: prompt.startsWith("hang") })),
  facts: {
    version: VERSION,
    standIn: true,
    egress: async () => ({ networkPolicy: "model", proxy: "started", container: PROXY, alias: "egress", port: 3128, answering: true }),
  },
});
const ALPHA = "tenant-alpha";
const BRAVO = "tenant-bravo";
let alpha = "";
let bravo = "";
/** Alpha's two Runs (one per CLI) and Bravo's one, all ended. */
let alphaClaude = "";
let alphaCodex = "";
let bravoClaude = "";

const ids = (answer: Answer) => (answer.json()["runs"] as Array<{ id: string }>).map((run) => run.id);

beforeAll(async () => {
  [alpha, bravo] = await Promise.all([svc.makeKey(ALPHA, "runs:write"), svc.makeKey(BRAVO, "runs:write")]);
  [alphaClaude, alphaCodex, bravoClaude] = await Promise.all([
    svc.submit(alpha, { prompt: "What is the capital of France?", labels: { suite: "status" } }),
    svc.submit(alpha, { cli: "codex", model: "gpt-5.5", prompt: "What is the capital of France?", labels: { suite: "status" } }),
    svc.submit(bravo, { prompt: "What is the capital of France?", labels: { suite: "status" } }),
  ]);
  await Promise.all([svc.ended(alpha, alphaClaude), svc.ended(alpha, alphaCodex), svc.ended(bravo, bravoClaude)]);
});

describe("GET /v1/runs for a console", () => {
  it("lists each CLI's Runs alone with cli=, each Run with its CLI, its model, when it started and how it ended", async () => {
    expect(ids(await svc.call(alpha, "/v1/runs?cli=claude"))).toEqual([alphaClaude]);
    expect(ids(await svc.call(alpha, "/v1/runs?cli=codex"))).toEqual([alphaCodex]);
    expect(ids(await svc.call(svc.token, "/v1/runs?cli=claude&label=suite%3Dstatus")).sort()).toEqual([alphaClaude, bravoClaude].sort());
    const [codex] = (await svc.call(alpha, "/v1/runs?cli=codex")).json()["runs"] as Array<Record<string, unknown>>;
    expect(codex).toMatchObject({ tenant: ALPHA, cli: "codex", model: "gpt-5.5", state: "completed", reason: "completed" });
    expect(Date.parse(codex?.["startedAt"] as string)).toBeGreaterThanOrEqual(Date.parse(codex?.["createdAt"] as string));
    expect(codex?.["durationMs"]).toEqual(expect.any(Number));
    const [claude] = (await svc.call(alpha, "/v1/runs?cli=claude")).json()["runs"] as Array<Record<string, unknown>>;
    expect(claude).toMatchObject({ cli: "claude" });
    expect(claude).not.toHaveProperty("model");
  });

  it("refuses a CLI it does not know, quoting it and naming the ones it takes", async () => {
    const refused = await svc.call(alpha, "/v1/runs?cli=gemini");
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ error: "invalid_request" });
    expect(refused.json()["message"]).toMatch(/^cli "gemini" is not one of claude, codex/);
  });

  it("lists one tenant's Runs for the admin with tenant=, and refuses a tenant's key another tenant's as every route does", async () => {
    expect(ids(await svc.call(svc.token, `/v1/runs?tenant=${BRAVO}`))).toEqual([bravoClaude]);
    expect(ids(await svc.call(svc.token, `/v1/runs?tenant=${ALPHA}&cli=codex`))).toEqual([alphaCodex]);
    expect(ids(await svc.call(svc.token, "/v1/runs?tenant=no-such-tenant"))).toEqual([]);
    expect(ids(await svc.call(alpha, `/v1/runs?tenant=${ALPHA}`)).sort()).toEqual([alphaClaude, alphaCodex].sort());

    const refused = await svc.call(alpha, `/v1/runs?tenant=${BRAVO}`);
    const usage = await svc.call(alpha, `/v1/usage?tenant=${BRAVO}`);
    expect([refused.status, usage.status]).toEqual([403, 403]);
    expect(refused.json()).toEqual({
      error: "forbidden",
      message: `tenant "${BRAVO}" is not this key's; leave tenant= out to read your own tenant's Runs`,
    });
    expect(refused.json()["message"]).toBe((usage.json()["message"] as string).replace("usage", "Runs"));
    expect((await svc.call(alpha, "/v1/runs?tenant=Not%20A%20Name")).status).toBe(400);
  });
});

describe("GET /v1/service", () => {
  it("answers the admin every tenant's Runs and usage today, the service's slots, its checks and its egress proxy, with no secret", async () => {
    // Bravo holds a slot while both look: the admin sees it, Alpha does not.
    const hanging = await svc.submit(bravo, { prompt: "hang: never answered", timeoutSeconds: 600 });
    await svc.reaches(bravo, hanging, ["running"]);
    try {
      const admin = await svc.call(svc.token, "/v1/service");
      expect(admin.status).toBe(200);
      const seen = admin.json();
      expect(seen).toMatchObject({
        caller: { tenant: "operator", scope: "admin" },
        version: VERSION,
        ready: true,
        standIn: true,
        checks: { engine: true, image: true, agentImage: "agentcage-agent:latest" },
        slots: { total: 2, running: 1, queued: 0 },
        egress: { networkPolicy: "model", proxy: "started", container: PROXY, alias: "egress", port: 3128, answering: true },
      });
      expect(Object.keys((seen["checks"] as { credentials: object }).credentials).sort()).toEqual(["claude", "codex"]);
      expect(Date.parse(seen["startedAt"] as string)).toBeLessThanOrEqual(Date.now());
      const tenants = seen["tenants"] as Array<{ tenant: string; running: number; queued: number; today: { runs: number } }>;
      expect(tenants.map((t) => t.tenant)).toEqual(expect.arrayContaining([ALPHA, BRAVO, "operator"]));
      expect(tenants.find((t) => t.tenant === ALPHA)).toMatchObject({ running: 0, queued: 0, today: { runs: 2, reasons: { completed: 2 } } });
      expect(tenants.find((t) => t.tenant === BRAVO)).toMatchObject({ running: 1, queued: 0, today: { runs: 1 } });

      const own = await svc.call(alpha, "/v1/service");
      expect(own.status).toBe(200);
      expect(own.json()).toMatchObject({
        caller: { tenant: ALPHA, scope: "runs:write" },
        version: VERSION,
        ready: true,
        slots: { total: 2, running: 0, queued: 0 },
        tenants: [{ tenant: ALPHA, running: 0, queued: 0, today: { runs: 2 } }],
        egress: { networkPolicy: "model", proxy: "started", answering: true },
      });
      // Neither another tenant's name or numbers, nor the deployment's image and proxy container.
      for (const never of [BRAVO, "operator", PROXY, "agentcage-agent"]) expect(own.text).not.toContain(never);

      const secrets = [svc.token, alpha, bravo];
      expect(secrets.every((secret) => secret.length >= 20)).toBe(true);
      for (const body of [admin.text, own.text]) {
        for (const secret of secrets) expect(body).not.toContain(secret);
        expect(body).not.toMatch(/whsec_|agentcage-run-[A-Za-z0-9_-]{20,}|secret/i);
      }
    } finally {
      await svc.call(bravo, `/v1/runs/${hanging}/cancel`, { method: "POST" });
    }
  });

  it("is in /openapi.json as getService", async () => {
    const document = (await svc.call(svc.token, "/openapi.json")).json() as { paths: Record<string, { get?: { operationId?: string } }> };
    expect(document.paths["/v1/service"]?.get?.operationId).toBe("getService");
  });
});
