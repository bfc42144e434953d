// The retention through a runtime's sweep (the fake engine, a real Staging Directory): session stores
// unused for longer than staging.sessionRetentionDays go, and are logged; kept Run directories go
// past staging.keptRunRetentionDays; a store a Run is resuming while the sweep runs is never taken.

import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { createAgentContainerRuntime, type AgentContainer } from "../index.js";
import type { Engine } from "../subpaths/runtime.js";
import { sessionStorePath, unmountUnder } from "../staging/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const STORE = { namespace: "claude", agentPath: "/home/agent/.claude/projects" } as const;
let runtimeDir: string;

beforeEach(async () => {
  runtimeDir = await mkdtemp(join(tmpdir(), "agentcage-retention-"));
});
afterEach(async () => {
  await unmountUnder(runtimeDir);
  await rm(runtimeDir, { recursive: true, force: true });
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

function runtimeOn(engine: Engine, staging: Partial<NonNullable<AgentContainer["staging"]>>, logger = pino({ level: "silent" })) {
  return createAgentContainerRuntime({
    container: { image: "fake:1", logger, staging: { runtimeDir, ...staging } },
    run: (prompt) => ({
      args: ["agent"],
      stdin: prompt.text,
      outcome: async (stdout) => {
        for await (const _ of stdout) void _;
        return { ok: true, sessionId: "resumed-session" };
      },
    }),
    engine,
  });
}

/** A kept store last used `ageDays` ago. */
async function keptStore(id: string, ageDays: number): Promise<string> {
  const store = sessionStorePath(runtimeDir, STORE.namespace, id);
  await mkdir(join(store, "-work"), { recursive: true });
  await writeFile(join(store, "-work", `${id}.jsonl`), "turn 1\n");
  const when = new Date(Date.now() - ageDays * DAY_MS);
  await utimes(store, when, when);
  return store;
}

describe("a runtime's sweep and session stores", () => {
  it("removes a store unused for longer than sessionRetentionDays (30 by default), keeps a recent one, and logs what it removed", async () => {
    await keptStore("month-old", 31);
    await keptStore("week-old", 7);
    const { logger, lines } = capture();
    const swept = await runtimeOn(createFakeEngine({}), {}, logger).sweep();
    expect(swept.removedSessionStores).toEqual([{ namespace: "claude", id: "month-old", lastUsedAt: expect.any(String) }]);
    expect(await readdir(join(runtimeDir, "sessions", "claude"))).toEqual(["week-old"]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: "sweep removed a session store past its retention",
        namespace: "claude",
        sessionId: "month-old",
        sessionRetentionDays: 30,
      }),
    );
  });

  it("takes its own sessionRetentionDays", async () => {
    await keptStore("week-old", 7);
    expect((await runtimeOn(createFakeEngine({}), { sessionRetentionDays: 10 }).sweep()).removedSessionStores).toEqual([]);
    expect((await runtimeOn(createFakeEngine({}), { sessionRetentionDays: 5 }).sweep()).removedSessionStores).toMatchObject([{ id: "week-old" }]);
  });

  it("never takes the store a Run is resuming, and the Run's use starts its retention again", async () => {
    const store = await keptStore("resumed-session", 40);
    const engine = createFakeEngine({ timed: [{ afterMs: 300, stdout: "done\n" }] });
    const runtime = runtimeOn(engine, {});
    // The Run's first step is the start-up sweep, which must not take the store it is about to resume.
    const running = runtime.run({ text: "go on" }, { sessionStore: { ...STORE, resume: "resumed-session" } });
    // While the Run holds it, a sweep that would otherwise remove it.
    let settled = false;
    void running.then(() => (settled = true));
    while (!settled && engine.calls.every((c) => !c.startsWith("start "))) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(settled).toBe(false);
    expect((await runtime.sweep()).removedSessionStores).toEqual([]);
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: true, session: { id: "resumed-session", kept: true } });
    expect(Date.now() - (await stat(store)).mtimeMs).toBeLessThan(60_000);
    expect((await runtime.sweep()).removedSessionStores).toEqual([]);
  });
});

describe("a runtime's sweep and kept Run directories", () => {
  /** A finished Run directory of this owner whose process is gone, started `ageDays` ago. */
  async function keptRun(runId: string, ageDays: number): Promise<void> {
    const root = join(runtimeDir, runId);
    await mkdir(join(root, "work", "out"), { recursive: true });
    const ownership = { session: "gone", host: "elsewhere", pid: "1", pidStart: "", deadline: "1" };
    await writeFile(
      join(root, "run.json"),
      JSON.stringify({ runId, owner: "agentcage", createdAt: new Date(Date.now() - ageDays * DAY_MS).toISOString(), ownership }),
    );
    await writeFile(join(root, "done"), "");
  }

  it("keeps one for keptRunRetentionDays (1 by default) and removes it after", async () => {
    await keptRun("00000000000000a1", 0.5);
    await keptRun("00000000000000a2", 3);
    expect((await runtimeOn(createFakeEngine({}), { keepRuns: true }).sweep()).removedRunDirectories).toEqual(["00000000000000a2"]);
    expect((await runtimeOn(createFakeEngine({}), { keepRuns: true, keptRunRetentionDays: 7 }).sweep()).removedRunDirectories).toEqual([]);
    await keptRun("00000000000000a3", 8);
    expect((await runtimeOn(createFakeEngine({}), { keepRuns: true, keptRunRetentionDays: 7 }).sweep()).removedRunDirectories).toEqual(["00000000000000a3"]);
    expect((await readdir(runtimeDir)).sort()).toEqual(["00000000000000a1"]);
  });
});
