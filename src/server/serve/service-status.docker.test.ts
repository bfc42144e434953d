// GET /v1/service over real HTTP against a real service that started its own egress proxy (the
// stand-in model behind it): the runner's checks and the proxy as the admin sees them (its container
// running on the engine) and as a tenant does (neither the proxy's container nor the agent image),
// and no secret (the Operator's token, a key, the proxy's control secret) in either answer. The
// route's own logic (tenants, slots, usage, the lists by CLI and tenant) is service-status.test.ts's.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { docker } from "../../../test/support/engine.js";
import { useTenantService } from "../../../test/support/tenants.js";

const svc = useTenantService("service-status", { networkPolicy: "model", slots: 2 });
const ALPHA = "tenant-alpha";
let alpha = "";

beforeAll(async () => {
  alpha = (await svc.makeKey(ALPHA, "runs:write")).key;
}, 60_000);

describe("GET /v1/service with serve's own egress proxy", () => {
  it("answers the admin the runner's checks and the proxy, running on the engine, and a tenant neither its container nor the image, with no secret", async () => {
    const admin = await svc.call(svc.operator(), "/v1/service");
    expect(admin.status).toBe(200);
    const seen = admin.json();
    expect(seen).toMatchObject({
      caller: { tenant: "operator", scope: "admin" },
      ready: true,
      standIn: true,
      checks: { engine: true, image: true, agentImage: "agentcage-agent:latest" },
      slots: { total: 2 },
      egress: { networkPolicy: "model", proxy: "started", alias: "egress", port: expect.any(Number), answering: true },
    });
    expect(Object.keys((seen["checks"] as { credentials: object }).credentials).sort()).toEqual(["claude", "codex"]);
    const proxy = (seen["egress"] as { container: string }).container;
    expect(docker("ps", "--quiet", "--filter", `name=^${proxy}$`)).not.toBe("");

    const own = await svc.call(alpha, "/v1/service");
    expect(own.status).toBe(200);
    expect(own.json()).toMatchObject({ caller: { tenant: ALPHA, scope: "runs:write" }, egress: { networkPolicy: "model", proxy: "started", answering: true } });
    for (const never of [proxy, "agentcage-agent"]) expect(own.text).not.toContain(never);

    const secrets = [svc.operator(), alpha, proxySecret()];
    expect(secrets.every((secret) => secret.length >= 20)).toBe(true);
    for (const body of [admin.text, own.text]) {
      for (const secret of secrets) expect(body).not.toContain(secret);
      expect(body).not.toMatch(/whsec_|agentcage-run-[A-Za-z0-9_-]{20,}|secret/i);
    }
  }, 120_000);
});

/** The control secret of the proxy serve started, from its control directory in the Staging Directory. */
function proxySecret(): string {
  const staging = join(svc.runtimeDir, "staging");
  const [directory] = readdirSync(staging).filter((name) => name.startsWith(".egress-"));
  return readFileSync(join(staging, directory as string, "control-secret"), "utf8").trim();
}
