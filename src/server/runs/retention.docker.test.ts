// The retention through the real service (and the engine its sweep asks): `serve` sweeps at start
// and then every interval, so a kept session store unused for longer than sessionRetentionDays goes
// while it runs, logged; a recent one stays. With runRetentionDays an ended Run's record goes too.
// A retention that means nothing is refused before anything starts.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { capturingLogger } from "../../../test/support/engine.js";
import { serve, ServeError } from "../index.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), "agentcage-retention-serve-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function keptStore(runtimeDir: string, id: string, ageDays: number): string {
  const store = join(runtimeDir, "staging", "sessions", "claude", id);
  mkdirSync(join(store, "-work"), { recursive: true });
  writeFileSync(join(store, "-work", `${id}.jsonl`), "turn 1\n");
  const when = new Date(Date.now() - ageDays * DAY_MS);
  utimesSync(store, when, when);
  return store;
}

describe("serve's sweep of session stores", () => {
  it("removes a store past sessionRetentionDays at start and again while it runs, and keeps a recent one", async () => {
    const runtimeDir = join(root, "rt");
    const atStart = keptStore(runtimeDir, "old-at-start", 8);
    const recent = keptStore(runtimeDir, "recent", 2);
    const { logger, lines } = capturingLogger();
    const running = await serve({ runtimeDir, port: 0, environment: {}, logger, sessions: true, sessionRetentionDays: 7, sweepIntervalMs: 200 });
    try {
      expect(existsSync(atStart)).toBe(false);
      const later = keptStore(runtimeDir, "old-later", 30);
      const sweptLines = () =>
        lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line["msg"] === "sweep removed a session store past its retention");
      // Done is when the sweep says so: it renames a store aside before it removes it, so the name going is not the end.
      for (let i = 0; i < 200 && !sweptLines().some((line) => line["sessionId"] === "old-later"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(existsSync(later)).toBe(false);
      expect(readdirSync(join(runtimeDir, "staging", "sessions", "claude"))).toEqual(["recent"]);
      expect(existsSync(recent)).toBe(true);
      const swept = sweptLines();
      expect(swept.map((line) => line["sessionId"]).sort()).toEqual(["old-at-start", "old-later"]);
      expect(swept[0]).toMatchObject({ namespace: "claude", sessionRetentionDays: 7 });
    } finally {
      await running.stop(1000);
    }
  }, 60_000);

  it("with runRetentionDays, removes an ended Run's record and artifacts past it at start, as DELETE does, and keeps the rest", async () => {
    const runtimeDir = join(root, "records");
    const runs = join(runtimeDir, "service", "runs");
    const record = (id: string, endedDaysAgo: number) => {
      mkdirSync(join(runs, id, "harvest"), { recursive: true });
      writeFileSync(join(runs, id, "harvest", "answer.txt"), "an artifact\n");
      const endedAt = new Date(Date.now() - endedDaysAgo * DAY_MS).toISOString();
      writeFileSync(join(runs, id, "request.json"), JSON.stringify({ cli: "claude", prompt: "hi" }));
      writeFileSync(join(runs, id, "state.json"), JSON.stringify({ id, state: "completed", createdAt: endedAt, endedAt, labels: {} }));
    };
    record("00000000000000e1", 40);
    record("00000000000000e2", 10);
    const { logger, lines } = capturingLogger();
    const running = await serve({ runtimeDir, port: 0, environment: {}, logger, runRetentionDays: 30 });
    try {
      expect(readdirSync(runs)).toEqual(["00000000000000e2"]);
      expect(await running.service.get("00000000000000e1")).toBeUndefined();
      expect((await running.service.get("00000000000000e2"))?.state).toBe("completed");
      const said = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line["msg"] === "sweep removed an ended Run's record and artifacts past their retention");
      expect(said).toMatchObject([{ runId: "00000000000000e1", runRetentionDays: 30 }]);
    } finally {
      await running.stop(1000);
    }
  }, 60_000);

  it("without runRetentionDays keeps every ended Run's record", async () => {
    const runtimeDir = join(root, "records-kept");
    const runs = join(runtimeDir, "service", "runs", "00000000000000e3");
    mkdirSync(runs, { recursive: true });
    const endedAt = new Date(Date.now() - 400 * DAY_MS).toISOString();
    writeFileSync(join(runs, "request.json"), JSON.stringify({ cli: "claude", prompt: "hi" }));
    writeFileSync(join(runs, "state.json"), JSON.stringify({ id: "00000000000000e3", state: "completed", createdAt: endedAt, endedAt, labels: {} }));
    const running = await serve({ runtimeDir, port: 0, environment: {}, logger: capturingLogger().logger });
    try {
      expect((await running.service.get("00000000000000e3"))?.state).toBe("completed");
    } finally {
      await running.stop(1000);
    }
  }, 60_000);

  it.each([[0], [-1], [1.5], [Number.NaN], [1e9]])("refuses runRetentionDays %s before anything starts, saying how to keep records", async (days) => {
    const runtimeDir = join(root, `refused-runs-${String(days)}`);
    const refused = serve({ runtimeDir, port: 0, environment: {}, logger: capturingLogger().logger, runRetentionDays: days });
    await expect(refused).rejects.toThrow(/^--run-retention-days \S+ is not a whole number of days from 1 to 3650; .*leave it out to keep them until DELETE$/);
    expect(existsSync(runtimeDir)).toBe(false);
  });

  it.each([[0], [-1], [1.5], [Number.NaN], [1e9]])("refuses sessionRetentionDays %s before anything starts", async (days) => {
    const runtimeDir = join(root, `refused-${String(days)}`);
    const refused = serve({ runtimeDir, port: 0, environment: {}, logger: capturingLogger().logger, sessionRetentionDays: days });
    await expect(refused).rejects.toThrow(ServeError);
    await expect(refused).rejects.toThrow(
      /^--session-retention-days \S+ is not a whole number of days from 1 to 3650; write how many days a session is kept after its last use, e\.g\. 30$/,
    );
    expect(existsSync(runtimeDir)).toBe(false);
  });
});
