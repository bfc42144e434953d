// A service killed with SIGKILL and started again, as real processes over real HTTP: finished Runs
// are served as before, the queued one runs (resuming a kept session whose store is past its
// retention: the restarted service holds it before its first sweep), the one that was running ends
// as interrupted (unavailable, saying so), and the killed process's containers are gone.

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { docker } from "../../../test/support/engine.js";
import { startServeProcess } from "../../../test/support/serve-process.js";

const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-restart-"));
const TOKEN = "service-restart-test-token-0123456789";
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(runtimeDir, { recursive: true, force: true });
});

/** Starts `agentcage serve` as its own process, one Run at a time; resolves once it listens. */
async function startService(...extra: string[]): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess({ runtimeDir, token: TOKEN, args: ["--slots", "1", ...extra] });
  children.push(started.child);
  return started;
}

async function call(url: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  return (await post(url, path, body)).json() as Promise<Record<string, unknown>>;
}

function post(url: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen within 30 s`);
}

describe("a service killed with SIGKILL and started again", () => {
  it("keeps finished Runs, runs the queued one with its session, and ends the interrupted one, with no container left", async () => {
    const first = await startService("--sessions");
    const done = await call(first.url, "/v1/runs", { cli: "claude", prompt: "finish before the crash" });
    await until(async () => (await call(first.url, `/v1/runs/${done["id"] as string}`))["state"] === "completed", "the first Run finishing");
    const sessionId = ((await call(first.url, `/v1/runs/${done["id"] as string}`))["outcome"] as { result: { sessionId: string } }).result.sessionId;
    const hung = await call(first.url, "/v1/runs", { cli: "claude", prompt: "[stand-in:hang] never answered" });
    await until(async () => (await call(first.url, `/v1/runs/${hung["id"] as string}`))["state"] === "running", "the hung Run running");
    const queued = await call(first.url, "/v1/runs", { cli: "claude", prompt: "waits for the slot", resumeSession: sessionId });
    expect(queued["state"]).toBe("queued");
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    // Last used 40 days ago: past the default retention of 30, so a sweep takes it unless the queued Run holds it.
    const longAgo = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000);
    utimesSync(join(runtimeDir, "staging", "sessions", "claude", sessionId), longAgo, longAgo);

    const second = await startService("--sessions");
    expect(await call(second.url, `/v1/runs/${done["id"] as string}`)).toMatchObject({ state: "completed", outcome: { ok: true } });
    const interrupted = await call(second.url, `/v1/runs/${hung["id"] as string}`);
    expect(interrupted).toMatchObject({ state: "failed", outcome: { reason: "unavailable" } });
    expect(JSON.stringify(interrupted["outcome"])).toContain("the service stopped while this Run ran");
    await until(
      async () => ["completed", "failed"].includes((await call(second.url, `/v1/runs/${queued["id"] as string}`))["state"] as string),
      "the queued Run ending",
    );
    expect(await call(second.url, `/v1/runs/${queued["id"] as string}`)).toMatchObject({ state: "completed", outcome: { result: { sessionId } } });
    // What the killed process ran (its agent and its stand-in) is gone: the new process swept it.
    const leftovers = docker("ps", "--all", "--quiet", "--filter", "label=agentcage.run")
      .split("\n")
      .filter((id) => id !== "");
    const mine = leftovers.filter((id) => docker("inspect", "--format", '{{index .Config.Labels "agentcage.pid"}}', id) === String(first.child.pid));
    expect(mine).toEqual([]);
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
  }, 120_000);
});

describe("a service sent SIGTERM", () => {
  it("takes no new Runs, gives the running one its drain grace, cancels it, keeps the queued one for the next start, and exits", async () => {
    const service = await startService("--drain-seconds", "2");
    const hung = await call(service.url, "/v1/runs", { cli: "claude", prompt: "[stand-in:hang] outlives the drain" });
    await until(async () => (await call(service.url, `/v1/runs/${hung["id"] as string}`))["state"] === "running", "the hung Run running");
    const queued = await call(service.url, "/v1/runs", { cli: "codex", prompt: "waits out the drain" });
    expect(queued["state"]).toBe("queued");
    const exited = new Promise<number | null>((resolve) => service.child.once("exit", resolve));
    const signalled = performance.now();
    service.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Draining: a new Run is refused with 503 and Retry-After, and what is known is still answered.
    const refused = await post(service.url, "/v1/runs", { cli: "claude", prompt: "too late" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(((await refused.json()) as { error: string }).error).toBe("draining");
    expect((await call(service.url, `/v1/runs/${queued["id"] as string}`))["state"]).toBe("queued");
    expect(await exited).toBe(0);
    const tookMs = performance.now() - signalled;
    // The drain grace (2 s), then the stop grace (3 s) for the hung Run, and the stand-in's stop.
    expect(tookMs).toBeGreaterThan(2_000);
    expect(tookMs).toBeLessThan(20_000);
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.pid=${service.child.pid}`)).toBe("");

    const next = await startService();
    expect(await call(next.url, `/v1/runs/${hung["id"] as string}`)).toMatchObject({ state: "cancelled", outcome: { reason: "cancelled" } });
    await until(
      async () => (await call(next.url, `/v1/runs/${queued["id"] as string}`))["state"] === "completed",
      "the queued Run completing after the restart",
    );
    next.child.kill("SIGTERM");
    await new Promise((resolve) => next.child.once("exit", resolve));
  }, 120_000);
});
