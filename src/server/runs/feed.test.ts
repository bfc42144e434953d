// The events feed's log on disk, without the engine: entries numbered in order and read back after a
// restart with the numbering going on, a line a crash cut short skipped (and never written onto),
// the bound held by rotation with a cursor older than what is kept told so, and nothing but the
// record's lifecycle in an entry.

import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openFeed, type FeedEntry } from "./feed.js";
import type { Lifecycle } from "./run-service-options.js";
import type { RunRecord } from "./store.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-feed-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const all = () => true;
const record = (id: string, tenant: string, extra: Partial<RunRecord> = {}): RunRecord => ({
  id,
  tenant,
  state: "queued",
  createdAt: "2026-01-01T00:00:00.000Z",
  labels: { team: "red" },
  idempotencyKey: "secret-ish-idempotency-key",
  key: "abcdef012345",
  ...extra,
});
const change = (type: Lifecycle["type"], run: RunRecord): Lifecycle => ({ type, record: run, at: new Date().toISOString() });

describe("the events feed", () => {
  it("numbers each step in order, writes it as one line, and hears it once written", async () => {
    const dir = mkdtempSync(join(scratch, "order-"));
    const feed = await openFeed(dir);
    const heard: number[] = [];
    feed.listen((entry) => heard.push(entry.id));
    feed.append(change("run.queued", record("00000000000000a1", "a")));
    feed.append(change("run.queued", record("00000000000000b1", "b")));
    const finished = record("00000000000000a1", "a", {
      state: "completed",
      reason: "completed",
      durationMs: 1200,
      usage: { inputTokens: 10, outputTokens: 3, costUsd: 0.01 },
    });
    feed.append(change("run.finished", finished));
    await feed.flush();
    expect(heard).toEqual([1, 2, 3]);
    const lines = readFileSync(feed.path, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as FeedEntry).id)).toEqual([1, 2, 3]);
    const last = JSON.parse(lines[2] as string) as FeedEntry;
    expect(last).toMatchObject({ type: "run.finished", runId: "00000000000000a1", tenant: "a" });
    // Exactly the lifecycle: no key, no idempotency key, nothing of the request.
    expect(last.data).toEqual({
      state: "completed",
      labels: { team: "red" },
      reason: "completed",
      durationMs: 1200,
      inputTokens: 10,
      outputTokens: 3,
      costUsd: 0.01,
    });
    expect(lines.join("\n")).not.toContain("secret-ish");
    expect((await feed.after(0, (entry) => entry.tenant === "a", 10)).map((entry) => entry.id)).toEqual([1, 3]);
    expect((await feed.after(1, all, 1)).map((entry) => entry.id)).toEqual([2]);
  });

  it("goes on numbering after a restart, with what was there still there", async () => {
    const dir = mkdtempSync(join(scratch, "restart-"));
    const first = await openFeed(dir);
    expect(await first.newestId()).toBe(0);
    for (const id of ["00000000000000a1", "00000000000000a2"]) first.append(change("run.queued", record(id, "a")));
    await first.flush();
    const second = await openFeed(dir);
    expect(await second.newestId()).toBe(2);
    second.append(change("run.started", record("00000000000000a1", "a", { state: "starting" })));
    await second.flush();
    expect((await second.after(0, all, 10)).map((entry) => [entry.id, entry.type])).toEqual([
      [1, "run.queued"],
      [2, "run.queued"],
      [3, "run.started"],
    ]);
    expect(await second.standing(3)).toBe("kept");
    expect(await second.newestId()).toBe(3);
    expect(await second.standing(4)).toBe("ahead");
  });

  it("skips a last line a crash cut short, and writes the next entry on a line of its own", async () => {
    const dir = mkdtempSync(join(scratch, "cut-"));
    const first = await openFeed(dir);
    first.append(change("run.queued", record("00000000000000a1", "a")));
    await first.flush();
    appendFileSync(first.path, '{"id":2,"type":"run.sta');
    const second = await openFeed(dir);
    expect((await second.after(0, all, 10)).map((entry) => entry.id)).toEqual([1]);
    second.append(change("run.started", record("00000000000000a1", "a", { state: "starting" })));
    await second.flush();
    const third = await openFeed(dir);
    expect((await third.after(0, all, 10)).map((entry) => [entry.id, entry.type])).toEqual([
      [1, "run.queued"],
      [2, "run.started"],
    ]);
  });

  it("keeps the newest one to two files' worth, and tells a cursor older than that it has expired", async () => {
    const dir = mkdtempSync(join(scratch, "bound-"));
    const feed = await openFeed(dir, { entriesPerFile: 3 });
    for (let n = 1; n <= 10; n += 1) feed.append(change("run.queued", record(`00000000000000${n.toString(16).padStart(2, "0")}`, "a")));
    await feed.flush();
    // 1-3, 4-6, 7-9 filled a file each, 10 began the fourth: 7-9 rotated, 10 current, 1-6 dropped.
    expect((await feed.after(0, all, 100)).map((entry) => entry.id)).toEqual([7, 8, 9, 10]);
    expect(await feed.oldestId()).toBe(7);
    expect(await feed.standing(5)).toBe("expired");
    expect(await feed.standing(6)).toBe("kept");
    const reopened = await openFeed(dir, { entriesPerFile: 3 });
    expect((await reopened.after(6, all, 100)).map((entry) => entry.id)).toEqual([7, 8, 9, 10]);
    expect(await reopened.standing(0)).toBe("expired");
    reopened.append(change("run.deleted", record("0000000000000001", "a")));
    await reopened.flush();
    expect((await reopened.after(9, all, 100)).map((entry) => entry.id)).toEqual([10, 11]);
  });
});
