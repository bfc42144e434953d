// Sessions over HTTP, against the real service and engine with the real claude CLI and the stand-in:
// a service started with sessions keeps each Run's session, and a later POST /v1/runs with
// resumeSession (or `agentcage run --remote --resume`) continues it in a fresh container; a service
// without sessions refuses resumeSession at once (400), saying how the service is started to keep them.

import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandEnv, runCommand } from "../../../test/support/command.js";
import { containersOfRun } from "../../../test/support/engine.js";
import { useTestService } from "../../../test/support/service.js";

/** `agentcage run`'s exit status for a completed Run (EXIT.completed; src/cli is above this folder). */
const COMPLETED = 0;
const keeping = useTestService("sessions-http", { sessions: true });
const plain = useTestService("no-sessions-http");
// One slot, so a second Run waits in the service's own queue, and a sweep every 200 ms while it waits.
const queued = useTestService("sessions-queued", { sessions: true, slots: 1, sweepIntervalMs: 200 });
const DAY_MS = 24 * 60 * 60 * 1000;

const call = (url: string, token: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });

async function ended(url: string, token: string, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 900; i++) {
    const run = (await (await call(url, token, `/v1/runs/${id}`)).json()) as Record<string, unknown>;
    if (run["endedAt"] !== undefined) return run;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Run ${id} did not end within 90 s`);
}

describe("sessions over HTTP", () => {
  it("resumes an earlier Run's session in a later Run, over HTTP and with agentcage run --remote --resume", async () => {
    const url = keeping.running().url;
    const token = keeping.token();
    const first = await call(url, token, "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "claude", prompt: "FIRST-TURN: remember the word PELICAN." }),
    });
    expect(first.status).toBe(202);
    const one = await ended(url, token, ((await first.json()) as { id: string }).id);
    const sessionId = (one["outcome"] as { result: { sessionId: string } }).result.sessionId;
    expect(one["outcome"]).toMatchObject({ ok: true, session: { id: sessionId, kept: true } });

    const second = await call(url, token, "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "claude", prompt: "SECOND-TURN: which word?", resumeSession: sessionId }),
    });
    expect(second.status).toBe(202);
    const two = await ended(url, token, ((await second.json()) as { id: string }).id);
    expect(two).toMatchObject({ state: "completed", outcome: { ok: true, result: { sessionId }, session: { id: sessionId, kept: true } } });
    expect(containersOfRun(two["id"] as string)).toEqual([]);

    const resumed = await runCommand(
      ["run", "claude", "THIRD-TURN: and now?", "--remote", url, "--resume", sessionId, "--json"],
      commandEnv({ AGENTCAGE_TOKEN: token }),
    );
    expect(resumed.code, resumed.stderr).toBe(COMPLETED);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ok: true, result: { sessionId }, session: { id: sessionId, kept: true } });

    // The other CLI cannot read a claude session: refused before it is a Run, naming the CLI it needs.
    const crossed = await call(url, token, "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "codex", prompt: "which word?", resumeSession: sessionId }),
    });
    expect(crossed.status).toBe(400);
    expect(((await crossed.json()) as { message: string }).message).toBe(
      `resumeSession ${JSON.stringify(sessionId)} is a claude session; resume it with cli "claude", not "codex"`,
    );
  }, 180_000);

  it("keeps a store past its retention from the sweep while a Run that resumes it waits in the queue", async () => {
    const url = queued.running().url;
    const token = queued.token();
    const submit = async (body: Record<string, unknown>): Promise<string> => {
      const answer = await call(url, token, "/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", ...body }) });
      expect(answer.status).toBe(202);
      return ((await answer.json()) as { id: string }).id;
    };
    const one = await ended(url, token, await submit({ prompt: "FIRST-TURN: remember the word HERON." }));
    const sessionId = (one["outcome"] as { result: { sessionId: string } }).result.sessionId;
    const blocker = await submit({ prompt: "[stand-in:hang] hold the only slot" });
    const waiting = await submit({ prompt: "SECOND-TURN: which word?", resumeSession: sessionId });
    expect(((await (await call(url, token, `/v1/runs/${waiting}`)).json()) as { state: string }).state).toBe("queued");
    // Last used 40 days ago: past the default retention of 30, so the next sweep takes it unless it is held.
    const store = join(queued.runtimeDir, "staging", "sessions", "claude", sessionId);
    const longAgo = new Date(Date.now() - 40 * DAY_MS);
    utimesSync(store, longAgo, longAgo);
    // Several sweeps pass while it waits (one every 200 ms).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(existsSync(store)).toBe(true);

    expect((await call(url, token, `/v1/runs/${blocker}/cancel`, { method: "POST" })).status).toBe(200);
    const two = await ended(url, token, waiting);
    expect(two).toMatchObject({ state: "completed", outcome: { ok: true, result: { sessionId }, session: { id: sessionId, kept: true } } });
  }, 180_000);

  it("refuses resumeSession with 400 on a service that keeps no sessions, saying how to start one that does", async () => {
    const answer = await call(plain.running().url, plain.token(), "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "claude", prompt: "hello", resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" }),
    });
    expect(answer.status).toBe(400);
    const said = (await answer.json()) as { error: string; message: string };
    expect(said.error).toBe("invalid_request");
    expect(said.message).toContain('resumeSession "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c"');
    expect(said.message).toContain("agentcage serve --sessions");
    expect(said.message).not.toContain("sessions: true");
    expect((await (await call(plain.running().url, plain.token(), "/v1/runs")).json()) as { runs: unknown[] }).toMatchObject({ runs: [] });
  });
});
