// The Run Store's contract: what each operation of store.ts promises, in its words, as one suite run
// against every implementation (the in-memory store and the file store in store.test.ts, the
// Postgres store in store-postgres.postgres.test.ts), each given by a factory of fresh stores.

import { describe, expect, it } from "vitest";
import type { RunRecord, RunStore, StoredDelivery } from "../../src/server/runs/index.js";

export const record = (id: string, more: Partial<RunRecord> = {}): RunRecord => ({
  id,
  tenant: "acme",
  state: "queued",
  createdAt: "2026-12-01T10:00:00.000Z",
  cli: "claude",
  labels: {},
  ...more,
});

const owed = (webhookId: string): StoredDelivery => ({
  kind: "owed",
  webhookId,
  type: "run.started",
  at: "2026-12-01T10:00:00.000Z",
  url: "https://a.example",
  payload: "{}",
});

/** Every Run a store keeps, oldest first, a page at a time. */
export async function everyRun(store: Pick<RunStore, "page">): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (let page = await store.page({ limit: 2 }); ; page = await store.page({ limit: 2, after: records.at(-1) })) {
    records.push(...page.records);
    if (!page.more) return records.reverse();
  }
}

/** A store under test: one over storage of its own, empty; `reopen`, for a store that outlives its process, another over the same storage, as a restart opens it. */
export type StoreUnderTest = { readonly store: RunStore; readonly reopen?: () => Promise<RunStore> };

/** Registers the contract's tests for one implementation; `restarts`: it keeps its Runs past its process (then `make` gives `reopen`). */
export function describeRunStoreContract(name: string, make: () => Promise<StoreUnderTest>, { restarts }: { readonly restarts: boolean }): void {
  describe(`${name}, as a Run Store`, () => {
    const opened = async () => {
      const { store } = await make();
      expect(await store.prepare()).toEqual([]);
      return store;
    };

    it("lists a created Run with its request and trace context, oldest first, and nothing else", async () => {
      const store = await opened();
      expect(await everyRun(store)).toEqual([]);
      await store.create(record("00000000000000b2", { createdAt: "2026-12-01T10:00:02.000Z" }), { cli: "claude", prompt: "second" });
      await store.create(
        record("00000000000000b1", { createdAt: "2026-12-01T10:00:01.000Z" }),
        { cli: "claude", prompt: "first" },
        { traceparent: "00-a-b-01" },
      );
      expect((await everyRun(store)).map((r) => r.id)).toEqual(["00000000000000b1", "00000000000000b2"]);
      expect(await store.request("00000000000000b1")).toEqual({ cli: "claude", prompt: "first" });
      expect(await store.trace("00000000000000b1")).toEqual({ traceparent: "00-a-b-01" });
      expect(await store.trace("00000000000000b2")).toBeUndefined();
      await expect(store.request("00000000000000ff")).rejects.toThrow();
      expect(await store.outcome("00000000000000b1")).toBeUndefined();
      expect(await store.a2aTask("00000000000000b1")).toBeUndefined();
    });

    it("takes overlapping updates of one Run in the order they were asked, the last one read", async () => {
      const store = await opened();
      const queued = record("00000000000000c1");
      await store.create(queued, { cli: "claude", prompt: "hi" });
      const written = await Promise.allSettled([store.update({ ...queued, state: "running" }), store.update({ ...queued, state: "cancelled" })]);
      expect(written.map((w) => w.status)).toEqual(["fulfilled", "fulfilled"]);
      expect(await everyRun(store)).toEqual([{ ...queued, state: "cancelled" }]);
    });

    it("keeps values as JSON does: a field left undefined is not kept, and what a caller holds is not the store's", async () => {
      const store = await opened();
      const request = { cli: "claude", prompt: "hi", model: undefined, labels: { a: "1" } };
      await store.create({ ...record("00000000000000c2"), key: undefined } as unknown as RunRecord, request);
      request.labels.a = "changed";
      const [listed] = await everyRun(store);
      expect(listed).toEqual(record("00000000000000c2"));
      expect(listed).not.toHaveProperty("key");
      const read = (await store.request("00000000000000c2")) as typeof request;
      expect(read).toEqual({ cli: "claude", prompt: "hi", labels: { a: "1" } });
      read.labels.a = "changed again";
      expect(await store.request("00000000000000c2")).toEqual({ cli: "claude", prompt: "hi", labels: { a: "1" } });
    });

    it("reads a Run's events in the order appended, and none for a Run that has none", async () => {
      const store = await opened();
      await store.create(record("00000000000000d1"), {});
      expect(await store.events("00000000000000d1")).toEqual([]);
      // One at a time, then several in one write.
      for (let id = 1; id <= 40; id += 1) await store.appendEvents("00000000000000d1", [{ id, type: "agent", data: { n: id } }]);
      await store.appendEvents(
        "00000000000000d1",
        Array.from({ length: 10 }, (_, n) => ({ id: 41 + n, type: "agent", data: { n: 41 + n } })),
      );
      expect((await store.events("00000000000000d1")).map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, n) => n + 1));
      expect(await store.events("00000000000000ff")).toEqual([]);
    });

    it("keeps an Outcome and an A2A task once saved, the later task replacing the earlier", async () => {
      const store = await opened();
      await store.create(record("00000000000000e1"), {});
      await store.saveOutcome("00000000000000e1", { ok: true, reason: "completed" });
      await store.saveA2ATask("00000000000000e1", { id: "t", history: [1] });
      await store.saveA2ATask("00000000000000e1", { id: "t", history: [1, 2] });
      expect(await store.outcome("00000000000000e1")).toEqual({ ok: true, reason: "completed" });
      expect(await store.a2aTask("00000000000000e1")).toEqual({ id: "t", history: [1, 2] });
    });

    it("keeps a Run's deliveries in order while it is recorded, and nothing once it was removed", async () => {
      const store = await opened();
      await store.create(record("00000000000000f1"), {});
      expect(await store.appendDelivery("00000000000000f1", owed("w1"))).toBe(true);
      expect(await store.appendDelivery("00000000000000f1", owed("w2"))).toBe(true);
      expect((await store.deliveries("00000000000000f1")).map((d) => d.webhookId)).toEqual(["w1", "w2"]);
      await store.remove("00000000000000f1");
      expect(await store.appendDelivery("00000000000000f1", owed("w3"))).toBe(false);
      expect(await store.deliveries("00000000000000f1")).toEqual([]);
    });

    it("forgets a removed Run and all kept of it, and refuses to write to it", async () => {
      const store = await opened();
      await store.create(record("00000000000000f2"), { prompt: "gone" });
      await store.appendEvents("00000000000000f2", [{ id: 1, type: "state", data: {} }]);
      await store.saveOutcome("00000000000000f2", { ok: true });
      await store.remove("00000000000000f2");
      await store.remove("00000000000000f2");
      expect(await everyRun(store)).toEqual([]);
      expect(await store.events("00000000000000f2")).toEqual([]);
      expect(await store.outcome("00000000000000f2")).toBeUndefined();
      await expect(store.request("00000000000000f2")).rejects.toThrow();
      await expect(store.update(record("00000000000000f2", { state: "failed" }))).rejects.toThrow();
      await expect(store.appendEvents("00000000000000f2", [{ id: 2, type: "state", data: {} }])).rejects.toThrow();
      await expect(store.saveOutcome("00000000000000f2", {})).rejects.toThrow();
    });

    it("pages Runs newest first by (createdAt, id), filtered by tenant, state, CLI and labels, each page after the Run before it", async () => {
      const store = await opened();
      const at = (n: number) => `2026-12-01T10:00:${String(n % 60).padStart(2, "0")}.000Z`;
      for (let n = 0; n < 30; n += 1) {
        const id = `000000000000${String(n).padStart(4, "0")}`;
        await store.create(
          record(id, {
            createdAt: at(Math.floor(n / 2)),
            tenant: n % 3 === 0 ? "other" : "acme",
            cli: n % 5 === 0 ? "codex" : "claude",
            labels: n % 2 === 0 ? { team: "red" } : { team: "blue", size: "s" },
          }),
          {},
        );
        if (n % 4 === 0)
          await store.update(
            record(id, {
              createdAt: at(Math.floor(n / 2)),
              state: "completed",
              tenant: n % 3 === 0 ? "other" : "acme",
              cli: n % 5 === 0 ? "codex" : "claude",
              labels: n % 2 === 0 ? { team: "red" } : { team: "blue", size: "s" },
            }),
          );
      }
      const all = await everyRun(store);
      expect(all).toHaveLength(30);
      const newestFirst = [...all].reverse();
      const queries = [
        {},
        { tenant: "acme" },
        { state: "completed" as const },
        { cli: "codex" },
        { labels: [["team", "blue"]] as const },
        {
          labels: [
            ["team", "blue"],
            ["size", "s"],
          ] as const,
          tenant: "other",
        },
        { labels: [["team", "green"]] as const },
        {
          labels: [
            ["team", "red"],
            ["team", "blue"],
          ] as const,
        },
      ];
      for (const query of queries) {
        const expected = newestFirst.filter(
          (r) =>
            (query.tenant === undefined || r.tenant === query.tenant) &&
            (query.state === undefined || r.state === query.state) &&
            (query.cli === undefined || r.cli === query.cli) &&
            (query.labels ?? []).every(([key, value]) => r.labels[key] === value),
        );
        const seen: RunRecord[] = [];
        let page = await store.page({ ...query, limit: 4 });
        for (;;) {
          seen.push(...page.records);
          expect(page.more, JSON.stringify(query)).toBe(seen.length < expected.length);
          if (!page.more) break;
          page = await store.page({ ...query, limit: 4, after: seen.at(-1) });
        }
        expect(
          seen.map((r) => r.id),
          JSON.stringify(query),
        ).toEqual(expected.map((r) => r.id));
      }
    });

    it("sums the usage of the Runs that ended since a time, per tenant and label, and forgets a removed Run's", async () => {
      const store = await opened();
      const ended = (id: string, endedAt: string, more: Partial<RunRecord> = {}) =>
        record(id, {
          state: "completed",
          reason: "completed",
          endedAt,
          usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.5 },
          labels: { team: "red" },
          ...more,
        });
      const runs = [
        ended("00000000000000a1", "2026-11-30T23:00:00.000Z"),
        ended("00000000000000a2", "2026-12-01T01:00:00.000Z"),
        ended("00000000000000a3", "2026-12-01T05:00:00.000Z", { reason: "timeout", state: "failed", labels: {} }),
        ended("00000000000000a4", "2026-12-02T05:00:00.000Z", { tenant: "other" }),
        record("00000000000000a5"),
      ];
      for (const run of runs) {
        await store.create({ ...run, state: "queued" } as RunRecord, {});
        await store.update(run);
      }
      const day = Date.parse("2026-12-01T00:00:00.000Z");
      const totals = (runs: number, reasons: Record<string, number>) => ({
        runs,
        reasons,
        inputTokens: 10 * runs,
        outputTokens: 2 * runs,
        costUsd: 0.5 * runs,
      });
      expect(await store.usage(day)).toEqual([
        { tenant: "acme", totals: totals(2, { completed: 1, timeout: 1 }), labels: { "team=red": totals(1, { completed: 1 }) } },
        { tenant: "other", totals: totals(1, { completed: 1 }), labels: { "team=red": totals(1, { completed: 1 }) } },
      ]);
      // Within a day: from that time on.
      expect((await store.usage(Date.parse("2026-12-01T02:00:00.000Z"), "acme")).map((u) => u.totals)).toEqual([totals(1, { timeout: 1 })]);
      expect((await store.usage(0, "acme")).map((u) => u.totals.runs)).toEqual([3]);
      expect(await store.usage(Date.parse("2026-12-03T00:00:00.000Z"))).toEqual([]);
      await store.remove("00000000000000a3");
      expect((await store.usage(day, "acme")).map((u) => u.totals)).toEqual([totals(1, { completed: 1 })]);
      expect(await store.endedBefore(Date.parse("2026-12-02T00:00:00.000Z"))).toEqual(["00000000000000a1", "00000000000000a2"]);
      expect(await store.tenants()).toEqual(["acme", "other"]);
    });

    it("answers the Runs a start acts on, whose a session is, and which Runs owe a webhook", async () => {
      const store = await opened();
      await store.create(record("00000000000000b1", { createdAt: "2026-12-01T10:00:01.000Z" }), {});
      await store.create(record("00000000000000b2", { createdAt: "2026-12-01T10:00:02.000Z", tenant: "other", cli: "codex" }), {});
      await store.create(record("00000000000000b3", { createdAt: "2026-12-01T10:00:03.000Z" }), {});
      await store.appendEvents("00000000000000b3", [{ id: 1, type: "state", data: {} }]);
      await store.appendEvents("00000000000000b3", [{ id: 2, type: "state", data: {} }]);
      await store.update(record("00000000000000b3", { createdAt: "2026-12-01T10:00:03.000Z", state: "running" }));
      for (const id of ["00000000000000b2", "00000000000000b1"]) {
        await store.saveOutcome(id, { ok: true, result: { sessionId: "s-1" } });
        await store.update(
          record(id, {
            state: "completed",
            endedAt: "2026-12-01T10:01:00.000Z",
            ...(id === "00000000000000b2"
              ? { tenant: "other", cli: "codex", createdAt: "2026-12-01T10:00:02.000Z" }
              : { createdAt: "2026-12-01T10:00:01.000Z" }),
          }),
        );
      }
      expect((await store.recoverable()).map(({ record: r, lastEventId }) => [r.id, r.state, lastEventId])).toEqual([["00000000000000b3", "running", 2]]);
      // The oldest Run that ended with it.
      expect(await store.sessionOwner("s-1")).toEqual({ tenant: "acme", cli: "claude" });
      expect(await store.sessionOwner("s-2")).toBeUndefined();
      expect(await store.owing()).toEqual([]);
      await store.appendDelivery("00000000000000b1", owed("w1"));
      await store.appendDelivery("00000000000000b1", {
        ...owed("w1"),
        kind: "attempt",
        attempt: 1,
        delivered: false,
        nextAttemptAt: "2026-12-01T10:00:05.000Z",
      });
      expect(await store.owing()).toEqual(["00000000000000b1"]);
      await store.appendDelivery("00000000000000b1", { ...owed("w1"), kind: "attempt", attempt: 2, delivered: true });
      expect(await store.owing()).toEqual([]);
      expect(await store.get("00000000000000b2")).toMatchObject({ id: "00000000000000b2", tenant: "other", state: "completed" });
      expect(await store.get("00000000000000ff")).toBeUndefined();
    });

    it("claims an idempotency key for exactly one of the submits racing with it, per tenant", async () => {
      const store = await opened();
      const claims = await Promise.all(["r1", "r2", "r3"].map((id) => store.keys.claim("acme", "k", id)));
      expect(claims.filter((c) => c === undefined)).toHaveLength(1);
      const holder = claims.find((c) => c !== undefined);
      expect(holder).toHaveProperty("making");
      expect(await store.keys.claim("other", "k", "r4")).toBeUndefined();
      await store.keys.made("acme", "k", "r1");
      await (holder as { making: Promise<void> }).making;
      expect(await store.keys.claim("acme", "k", "r5")).toEqual({ made: "r1" });
      await store.keys.release("acme", "k", "r9");
      expect(await store.keys.claim("acme", "k", "r5")).toEqual({ made: "r1" });
      await store.keys.release("acme", "k", "r1");
      expect(await store.keys.claim("acme", "k", "r5")).toBeUndefined();
    });

    // A store kept in its process's memory has no restart to keep anything over.
    if (restarts)
      it("keeps what it holds over a restart: records, requests, events, Outcomes, sessions, keys, usage and the Runs a start acts on", async () => {
        const { store, reopen } = await make();
        if (reopen === undefined) throw new Error(`${name} says it restarts, and its factory gave no reopen`);
        await store.prepare();
        const ended = (id: string) =>
          record(id, { state: "completed", reason: "completed", endedAt: "2026-12-01T10:05:00.000Z", usage: { costUsd: 1 }, idempotencyKey: `k-${id}` });
        for (const id of ["00000000000000c1", "00000000000000c2"]) {
          await store.create(record(id, { idempotencyKey: `k-${id}` }), { prompt: id }, { traceparent: `00-${id}-b-01` });
          await store.appendEvents(id, [{ id: 1, type: "state", data: { state: "running" } }]);
          await store.saveOutcome(id, { ok: true, result: { sessionId: `s-${id}` } });
          await store.update(ended(id));
          await store.keys.made("acme", `k-${id}`, id);
        }
        await store.create(record("00000000000000c3", { createdAt: "2026-12-01T10:00:03.000Z", tenant: "other" }), {});
        await store.appendEvents("00000000000000c3", [
          { id: 1, type: "state", data: {} },
          { id: 2, type: "agent", data: {} },
        ]);
        await store.update(record("00000000000000c3", { createdAt: "2026-12-01T10:00:03.000Z", tenant: "other", state: "running" }));
        await store.appendDelivery("00000000000000c3", owed("w1"));
        const after = await reopen();
        expect(await after.prepare()).toEqual([]);
        expect((await everyRun(after)).map((r) => [r.id, r.state])).toEqual([
          ["00000000000000c1", "completed"],
          ["00000000000000c2", "completed"],
          ["00000000000000c3", "running"],
        ]);
        expect(await after.request("00000000000000c1")).toEqual({ prompt: "00000000000000c1" });
        expect(await after.trace("00000000000000c1")).toEqual({ traceparent: "00-00000000000000c1-b-01" });
        expect(await after.events("00000000000000c1")).toEqual([{ id: 1, type: "state", data: { state: "running" } }]);
        expect(await after.outcome("00000000000000c2")).toEqual({ ok: true, result: { sessionId: "s-00000000000000c2" } });
        expect((await after.usage(0)).map((u) => [u.tenant, u.totals.runs, u.totals.costUsd])).toEqual([["acme", 2, 2]]);
        expect(await after.sessionOwner("s-00000000000000c1")).toEqual({ tenant: "acme", cli: "claude" });
        expect(await after.keys.claim("acme", "k-00000000000000c1", "00000000000000zz")).toEqual({ made: "00000000000000c1" });
        expect(await after.tenants()).toEqual(["acme", "other"]);
        expect((await after.recoverable()).map(({ record: r, lastEventId }) => [r.id, lastEventId])).toEqual([["00000000000000c3", 2]]);
        expect(await after.owing()).toEqual(["00000000000000c3"]);
      });
  });
}
