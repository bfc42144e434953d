// `agentcage serve --stand-in --pool 2` as its own process, over real HTTP against the real engine: a
// Run comes back warm, a writable one (its runner keeps no pool) does not; GET /v1/pool counts the
// claim for the admin scope and refuses a tenant's key as the other admin routes do; /metrics carries
// the pool's series to the admin alone; SIGTERM leaves no pooled container or directory behind. And
// --pool is refused, naming the flag, where this process cannot mount.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POOL_LABEL } from "../../subpaths/runtime.js";
import { commandEnv, MAIN, startCommand, type Started } from "../../../test/support/command.js";
import { docker } from "../../../test/support/engine.js";
import { tarOf } from "../../../test/support/tar.js";

const TOKEN = "service-pool-test-token-0123456789";
const root = mkdtempSync(join(tmpdir(), "agentcage-serve-pool-"));
const runtimeDir = join(root, "rt");
let service: Started;
let url = "";

beforeAll(async () => {
  service = startCommand(
    ["serve", "--port", "0", "--runtime-dir", runtimeDir, "--stand-in", "--slots", "2", "--pool", "2"],
    commandEnv({ AGENTCAGE_TOKEN: TOKEN }),
  );
  await service.stderrHas("listening on", 60_000);
  url = /listening on (http:\/\/[^\s;]+)/.exec(service.stderrSoFar())?.[1] ?? "";
}, 90_000);

afterAll(async () => {
  if (service.child.exitCode === null && service.child.signalCode === null) {
    service.child.kill("SIGTERM");
    await service.finished;
  }
  rmSync(root, { recursive: true, force: true });
}, 60_000);

async function call(key: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function until(check: () => Promise<boolean>, what: string, withinMs = 60_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ended(id: string): Promise<Record<string, unknown>> {
  await until(
    async () => ["completed", "failed", "cancelled"].includes((await call(TOKEN, `/v1/runs/${id}`)).json["state"] as string),
    `Run ${id} ending`,
    90_000,
  );
  return (await call(TOKEN, `/v1/runs/${id}`)).json;
}

/** This service's pooled containers: the pool's label, and its process's pid. */
function members(): string[] {
  return docker("ps", "--all", "--quiet", "--filter", `label=${POOL_LABEL}`, "--filter", `label=agentcage.pid=${service.child.pid}`)
    .split("\n")
    .filter((id) => id !== "");
}

describe("agentcage serve --pool", () => {
  it("serves a Run warm and a writable one cold, and GET /v1/pool counts the claim", async () => {
    await until(async () => (await call(TOKEN, "/v1/pool")).json["ready"] === 2, "the pool holding 2 ready");
    expect(members()).toHaveLength(2);

    const warm = await call(TOKEN, "/v1/runs", { cli: "claude", prompt: "What is the capital of France?" });
    expect(warm.status, warm.text).toBe(202);
    const run = await ended(warm.json["id"] as string);
    expect(run).toMatchObject({ state: "completed", outcome: { ok: true, warm: true } });

    // A writable Run goes to the runner without a pool: it starts cold, and its Outcome says nothing of a pool.
    const form = new FormData();
    form.append("request", JSON.stringify({ cli: "claude", prompt: "What is the capital of Italy?", writable: true }));
    form.append("inputs", new Blob([await tarOf({ "README.md": "# a project\n" })]), "inputs.tar");
    const writable = await fetch(`${url}/v1/runs`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: form });
    expect(writable.status).toBe(202);
    const writableRun = await ended(((await writable.json()) as { id: string }).id);
    expect(writableRun).toMatchObject({ state: "completed", outcome: { ok: true } });
    expect((writableRun["outcome"] as Record<string, unknown>)["warm"]).toBeUndefined();

    const pool = await call(TOKEN, "/v1/pool");
    expect(pool.status).toBe(200);
    expect(pool.json).toMatchObject({ enabled: true, size: 2, maxIdleSeconds: 300, claimed: 1, cold: {}, failures: 0, claimLatencyMs: { count: 1 } });
    const latency = pool.json["claimLatencyMs"] as { p50: number; max: number };
    expect(latency.p50).toBeGreaterThanOrEqual(0);
    expect(latency.max).toBeGreaterThanOrEqual(latency.p50);
  }, 180_000);

  it("refuses GET /v1/pool to a tenant's key as it refuses the other admin routes", async () => {
    const made = await call(TOKEN, "/v1/keys", { tenant: "team-a", scope: "runs:write" });
    expect(made.status, made.text).toBe(201);
    const key = made.json["key"] as string;
    const pool = await call(key, "/v1/pool");
    const tenants = await call(key, "/v1/tenants");
    expect(pool.status).toBe(403);
    expect(tenants.status).toBe(403);
    expect(pool.json["error"]).toBe("forbidden");
    expect(pool.json["message"]).toBe((tenants.json["message"] as string).replace("/v1/tenants", "/v1/pool"));
    expect(pool.text).not.toContain("claimed");
  });

  it("serves the pool's series on /metrics to the admin scope, and none of their samples to a tenant's key", async () => {
    const admin = (await call(TOKEN, "/metrics")).text;
    expect(admin).toMatch(/^agentcage_pool_size 2$/m);
    expect(admin).toMatch(/^agentcage_pool_ready \d+$/m);
    expect(admin).toMatch(/^agentcage_pool_making \d+$/m);
    expect(admin).toMatch(/^agentcage_pool_claimed_total 1$/m);
    expect(admin).toMatch(/^agentcage_pool_replaced_total 0$/m);
    expect(admin).toMatch(/^agentcage_pool_failures_total 0$/m);
    expect(admin).toContain("# TYPE agentcage_pool_cold_total counter");
    expect(admin).toMatch(/^agentcage_pool_claim_seconds_count 1$/m);
    expect(admin).toMatch(/^agentcage_pool_claim_seconds_bucket\{le="2"\} 1$/m);

    const made = await call(TOKEN, "/v1/keys", { tenant: "team-b", scope: "runs:read" });
    const tenant = (await call(made.json["key"] as string, "/metrics")).text;
    expect(tenant).toContain("# TYPE agentcage_pool_ready gauge");
    expect(tenant).not.toMatch(/^agentcage_pool_\w+(\{[^}]*\})? /m);
  });

  it("leaves no pooled container or directory behind after SIGTERM", async () => {
    const before = members();
    expect(before.length).toBeGreaterThan(0);
    const ids = before.map((id) => docker("inspect", "--format", "{{.Name}}", id).replace(/^\/agentcage-/, ""));
    for (const id of ids) expect(existsSync(join(runtimeDir, "staging", id))).toBe(true);
    service.child.kill("SIGTERM");
    const finished = await service.finished;
    expect(finished.code, finished.stderr.slice(-2000)).toBe(0);
    expect(members()).toEqual([]);
    for (const id of ids) expect(existsSync(join(runtimeDir, "staging", id))).toBe(false);
  }, 60_000);
});

describe("agentcage serve --pool where this process cannot mount", () => {
  it("refuses to start, naming the flag and what to do", async () => {
    // Not root (root here runs it as nobody): no tmpfs can be mounted for a member's out/.
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--runtime-dir", join(root, "nobody"), "--pool", "2"], {
      env: commandEnv({ AGENTCAGE_TOKEN: TOKEN }),
      stdio: ["ignore", "ignore", "pipe"],
      ...asNobody,
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toContain("--pool 2 needs this process to mount a tmpfs for each pooled container's out/");
    expect(stderr).toContain("or set --pool 0");
    expect(code).toBe(2);
    expect(existsSync(join(root, "nobody"))).toBe(false);
  });
});
