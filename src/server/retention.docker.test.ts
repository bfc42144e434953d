// The retention through the real service (and the engine its sweep asks): `serve` sweeps at start
// and then every interval, so a kept session store unused for longer than sessionRetentionDays goes
// while it runs, logged; a recent one stays. A retention that means nothing is refused before anything starts.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { capturingLogger } from "../../test/support/engine.js";
import { serve, ServeError } from "./index.js";

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
      for (let i = 0; i < 100 && existsSync(later); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(existsSync(later)).toBe(false);
      expect(readdirSync(join(runtimeDir, "staging", "sessions", "claude"))).toEqual(["recent"]);
      expect(existsSync(recent)).toBe(true);
      const swept = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line["msg"] === "sweep removed a session store past its retention");
      expect(swept.map((line) => line["sessionId"]).sort()).toEqual(["old-at-start", "old-later"]);
      expect(swept[0]).toMatchObject({ namespace: "claude", sessionRetentionDays: 7 });
    } finally {
      await running.stop(1000);
    }
  }, 60_000);

  it.each([[0], [-1], [1.5], [Number.NaN], [1e9]])("refuses sessionRetentionDays %s before anything starts", async (days) => {
    const runtimeDir = join(root, `refused-${String(days)}`);
    const refused = serve({ runtimeDir, port: 0, environment: {}, logger: capturingLogger().logger, sessionRetentionDays: days });
    await expect(refused).rejects.toThrow(ServeError);
    await expect(refused).rejects.toThrow(/^--session-retention-days \S+ is not a whole number of days from 1 to 3650; write how many days a session is kept after its last use, e\.g\. 30$/);
    expect(existsSync(runtimeDir)).toBe(false);
  });
});
