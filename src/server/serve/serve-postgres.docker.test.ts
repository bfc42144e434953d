// `agentcage serve` over a Postgres Run store (AGENTCAGE_STORE), as real processes over real HTTP,
// against a Postgres of the tests' own: a Run submitted with an idempotency key is recorded in the
// database (not in the runtime directory's records), listed, and after a restart listed and answered
// again, its key still answering it; a bad store URL is refused with its password masked.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MAIN } from "../../../test/support/command.js";
import { type ServeProcess, startServeProcess } from "../../../test/support/serve-process.js";
import { useTestPostgres } from "../../../test/support/use-postgres.js";

const postgres = useTestPostgres();
const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-serve-postgres-"));
const TOKEN = "service-postgres-test-token-0123456789";
const started: ServeProcess[] = [];

afterAll(() => {
  for (const service of started) service.child.kill("SIGKILL");
  rmSync(runtimeDir, { recursive: true, force: true });
});

async function call(
  url: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  // 3x what a Run of the stand-in takes on an idle machine, and more.
  for (let i = 0; i < 900; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 90 s`);
}

async function rows(url: string, statement: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(statement, values)).rows;
  } finally {
    await client.end();
  }
}

describe("agentcage serve over a Postgres Run store", () => {
  it("records a Run in the database, lists it, and lists and answers it again after a restart", async () => {
    const store = await postgres.database();
    const start = async () => {
      const service = await startServeProcess({ runtimeDir, token: TOKEN, args: ["--slots", "1"], env: { AGENTCAGE_STORE: store } });
      started.push(service);
      return service;
    };
    const first = await start();
    const submitted = await call(first.url, "/v1/runs", { cli: "claude", prompt: "kept in postgres", labels: { team: "red" } }, { "idempotency-key": "pg-1" });
    expect(submitted.status).toBe(202);
    const id = submitted.body["id"] as string;
    await until(async () => (await call(first.url, `/v1/runs/${id}`)).body["state"] === "completed", "the Run completing");
    expect((await call(first.url, "/v1/runs?label=team=red")).body["runs"]).toEqual([expect.objectContaining({ id, state: "completed" })]);
    // In the database, with its events; the runtime directory holds its files, not its record.
    expect(await rows(store, "SELECT state, tenant FROM agentcage.runs WHERE id = $1", [id])).toEqual([{ state: "completed", tenant: "operator" }]);
    expect(Number((await rows(store, "SELECT count(*) AS n FROM agentcage.run_events WHERE run_id = $1", [id]))[0]?.["n"])).toBeGreaterThan(1);
    expect(existsSync(join(runtimeDir, "service", "runs", id, "state.json"))).toBe(false);

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const second = await start();
    expect((await call(second.url, "/v1/runs")).body["runs"]).toEqual([expect.objectContaining({ id, state: "completed" })]);
    expect((await call(second.url, `/v1/runs/${id}`)).body).toMatchObject({ id, state: "completed", outcome: { ok: true } });
    // Its key answers it still: the same request is the same Run.
    const again = await call(second.url, "/v1/runs", { cli: "claude", prompt: "kept in postgres", labels: { team: "red" } }, { "idempotency-key": "pg-1" });
    expect(again).toMatchObject({ status: 200, body: { id } });
    expect((await call(second.url, "/v1/usage")).body).toMatchObject({ tenants: [expect.objectContaining({ tenant: "operator" })] });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 300_000);

  it("refuses a store it cannot open (exit 2), saying where without its password", () => {
    const refused = spawnSync(process.execPath, [MAIN, "serve", "--port", "0", "--runtime-dir", join(runtimeDir, "refused")], {
      env: { ...process.env, AGENTCAGE_TOKEN: TOKEN, AGENTCAGE_STORE: "postgres://agentcage:hunter2-secret@127.0.0.1:1/nowhere" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("postgres://agentcage:****@127.0.0.1:1/nowhere");
    expect(refused.stderr).not.toContain("hunter2-secret");
  });
});
