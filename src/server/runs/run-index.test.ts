// The index's answers against the plain way of finding them (every entry looked at): its usage sums by
// hour and day from any time, after Runs came, changed and went; and an index loaded at once answering
// as one built an entry at a time.

import { describe, expect, it } from "vitest";
import { createRunIndex, type IndexEntry } from "./run-index.js";
import { addRun, type TenantUsage, zeroTotals } from "./usage.js";

const HOUR_MS = 3_600_000;
const START = Date.parse("2026-12-01T00:00:00.000Z");

/** A small random walk that repeats: the same entries every run of the test. */
function draws(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function entries(count: number): IndexEntry[] {
  const draw = draws(7);
  return Array.from({ length: count }, (_, n) => {
    const created = START + Math.floor(draw() * 3 * 24 * HOUR_MS);
    const ended = draw() < 0.9;
    return {
      id: n.toString(16).padStart(16, "0"),
      createdAt: new Date(created).toISOString(),
      tenant: `tenant-${Math.floor(draw() * 3)}`,
      state: ended ? (draw() < 0.8 ? "completed" : "failed") : "running",
      labels: { team: `t${Math.floor(draw() * 2)}` },
      ...(ended ? { endedAt: new Date(created + Math.floor(draw() * 5 * HOUR_MS)).toISOString(), reason: "completed", costUsd: 1, inputTokens: n } : {}),
    };
  });
}

/** Each tenant's usage since a time, every entry looked at. */
function plainUsage(kept: readonly IndexEntry[], since: number, tenant?: string): TenantUsage[] {
  const sums = new Map<string, TenantUsage>();
  for (const entry of kept) {
    if (entry.endedAt === undefined || Date.parse(entry.endedAt) < since || (tenant !== undefined && entry.tenant !== tenant)) continue;
    const usage = sums.get(entry.tenant) ?? { tenant: entry.tenant, totals: zeroTotals(), labels: {} };
    sums.set(entry.tenant, usage);
    addRun(usage.totals, entry);
    for (const [key, value] of Object.entries(entry.labels)) addRun((usage.labels[`${key}=${value}`] ??= zeroTotals()), entry);
  }
  return [...sums.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : 1));
}

const byTime = (a: IndexEntry, b: IndexEntry) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1);
const times = [0, START + 24 * HOUR_MS, START + 24 * HOUR_MS + 1, START + 30 * HOUR_MS + 1_234_567, START + 47 * HOUR_MS, START + 50 * HOUR_MS + 59 * 60_000];

describe("the Run index", () => {
  it("sums the usage from any time as every entry looked at does, while Runs end, change and go", () => {
    const index = createRunIndex();
    const kept = new Map<string, IndexEntry>();
    const check = () => {
      for (const since of times) {
        expect(index.usage(since), `since ${new Date(since).toISOString()}`).toEqual(plainUsage([...kept.values()], since));
        expect(index.usage(since, "tenant-1")).toEqual(plainUsage([...kept.values()], since, "tenant-1"));
      }
    };
    const all = entries(400);
    for (const entry of all) {
      index.upsert(entry);
      kept.set(entry.id, entry);
    }
    check();
    // New Runs end in a day whose sums from an hour on were asked: before that hour, in it, and after.
    for (const [n, hour] of [25, 30, 31, 40].entries()) {
      const late: IndexEntry = {
        id: `00000000000001${n.toString(16).padStart(2, "0")}`,
        createdAt: new Date(START + (hour - 1) * HOUR_MS).toISOString(),
        tenant: `tenant-${n % 3}`,
        state: "completed",
        labels: { team: "t1" },
        endedAt: new Date(START + hour * HOUR_MS + 1_500_000).toISOString(),
        costUsd: 2,
        inputTokens: 9,
      };
      index.upsert(late);
      kept.set(late.id, late);
      check();
    }
    // Some end later than they did, some cost more, some go; each change after the sums were asked.
    for (const [n, entry] of all.entries()) {
      if (n % 5 === 0 && entry.endedAt !== undefined) {
        const changed = { ...entry, endedAt: new Date(Date.parse(entry.endedAt) + 2 * HOUR_MS).toISOString() };
        index.upsert(changed);
        kept.set(entry.id, changed);
      } else if (n % 7 === 0) {
        index.upsert({ ...entry, costUsd: 5 });
        kept.set(entry.id, { ...entry, costUsd: 5 });
      } else if (n % 11 === 0) {
        index.remove(entry.id);
        kept.delete(entry.id);
      } else if (n % 13 === 0) {
        // The same again: counted once.
        index.upsert({ ...entry });
      }
      if (n % 50 === 0) check();
    }
    check();
    // The one Run of its hour (its day has others), told again as it was after its day was summed: still counted once.
    const alone: IndexEntry = {
      id: "00000000000000ff",
      createdAt: "2026-12-04T21:00:00.000Z",
      tenant: "tenant-1",
      state: "completed",
      labels: {},
      endedAt: "2026-12-04T23:30:00.000Z",
      costUsd: 3,
    };
    index.upsert(alone);
    kept.set(alone.id, alone);
    check();
    index.upsert({ ...alone });
    check();
    expect(index.endedBefore(START + 30 * HOUR_MS).sort()).toEqual(
      [...kept.values()]
        .filter((entry) => entry.endedAt !== undefined && Date.parse(entry.endedAt) < START + 30 * HOUR_MS)
        .map((entry) => entry.id)
        .sort(),
    );
  });

  it("answers the same loaded at once as built an entry at a time", () => {
    const all = entries(300).map((entry, n) => (n % 4 === 0 ? { ...entry, session: `s-${n % 8}` } : entry));
    const built = createRunIndex();
    for (const entry of all) built.upsert(entry);
    const loaded = createRunIndex();
    loaded.load([...all].sort(byTime));
    expect(loaded.ordered()).toEqual(built.ordered());
    for (const query of [{ limit: 20 }, { tenant: "tenant-2", limit: 20 }, { state: "failed" as const, labels: [["team", "t1"]] as const, limit: 5 }])
      expect(loaded.page(query)).toEqual(built.page(query));
    for (const since of times) expect(loaded.usage(since)).toEqual(built.usage(since));
    expect(loaded.live()).toEqual(built.live());
    expect(loaded.sessionOwner("s-4")).toEqual(built.sessionOwner("s-4"));
    expect(loaded.tenants()).toEqual(built.tenants());
    // And keeps on answering the same as entries change.
    for (const index of [built, loaded]) index.upsert({ ...(all[10] as IndexEntry), state: "cancelled", endedAt: "2026-12-02T06:00:00.000Z" });
    expect(loaded.usage(times[3] as number)).toEqual(built.usage(times[3] as number));
    expect(() => loaded.load(all)).toThrow(/empty/);
  });

  it("refuses entries out of order at a load", () => {
    const [a, b] = entries(2).sort(byTime) as [IndexEntry, IndexEntry];
    expect(() => createRunIndex().load([b, a])).toThrow(/out of order/);
  });
});
