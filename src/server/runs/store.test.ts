// The Run Store's contract, run against both implementations (the file store and the in-memory one):
// what each operation promises, in the words of store.ts. Then what only the file store promises: its
// on-disk format, which a runtime directory written before the store was an interface still opens in.

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openFileStore } from "../serve/index.js";
import type { RunRecord, RunStore, StoredDelivery } from "./store.js";
import { createFileRunFiles, createFileRunStore, readFileRunStore, runsDirectory } from "./store-files.js";
import { createMemoryRunStore } from "./store-memory.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-store-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const record = (id: string, more: Partial<RunRecord> = {}): RunRecord => ({
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
async function everyRun(store: Pick<RunStore, "page">): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (let page = await store.page({ limit: 2 }); ; page = await store.page({ limit: 2, after: records.at(-1) })) {
    records.push(...page.records);
    if (!page.more) return records.reverse();
  }
}

const implementations: Array<[name: string, make: () => RunStore]> = [
  ["the file store", () => createFileRunStore(mkdtempSync(join(scratch, "rt-")))],
  ["the in-memory store", () => createMemoryRunStore()],
];

describe.each(implementations)("%s, as a Run Store", (_name, make) => {
  const opened = async () => {
    const store = make();
    expect(await store.prepare()).toEqual([]);
    return store;
  };

  it("lists a created Run with its request and trace context, oldest first, and nothing else", async () => {
    const store = await opened();
    expect(await everyRun(store)).toEqual([]);
    await store.create(record("00000000000000b2", { createdAt: "2026-12-01T10:00:02.000Z" }), { cli: "claude", prompt: "second" });
    await store.create(record("00000000000000b1", { createdAt: "2026-12-01T10:00:01.000Z" }), { cli: "claude", prompt: "first" }, { traceparent: "00-a-b-01" });
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
    const totals = (runs: number, reasons: Record<string, number>) => ({ runs, reasons, inputTokens: 10 * runs, outputTokens: 2 * runs, costUsd: 0.5 * runs });
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
          ...(id === "00000000000000b2" ? { tenant: "other", cli: "codex", createdAt: "2026-12-01T10:00:02.000Z" } : { createdAt: "2026-12-01T10:00:01.000Z" }),
        }),
      );
    }
    expect((await store.recoverable()).map(({ record: r, lastEventId }) => [r.id, r.state, lastEventId])).toEqual([["00000000000000b3", "running", 2]]);
    // The oldest Run that ended with it.
    expect(await store.sessionOwner("s-1")).toEqual({ tenant: "acme", cli: "claude" });
    expect(await store.sessionOwner("s-2")).toBeUndefined();
    expect(await store.owing()).toEqual([]);
    await store.appendDelivery("00000000000000b1", owed("w1"));
    await store.appendDelivery("00000000000000b1", { ...owed("w1"), kind: "attempt", attempt: 1, delivered: false, nextAttemptAt: "2026-12-01T10:00:05.000Z" });
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
});

describe("a Run's directory (RunFiles)", () => {
  it("is made readable by its user only, holds inputs/ and harvest/, and is removed whole", async () => {
    const root = mkdtempSync(join(scratch, "files-"));
    const files = createFileRunFiles(root);
    await files.open("00000000000000a1");
    expect(statSync(join(root, "00000000000000a1")).mode & 0o777).toBe(0o700);
    expect(files.inputsDirectory("00000000000000a1")).toBe(join(root, "00000000000000a1", "inputs"));
    expect(files.harvestDirectory("00000000000000a1")).toBe(join(root, "00000000000000a1", "harvest"));
    mkdirSync(files.harvestDirectory("00000000000000a1"));
    writeFileSync(join(files.harvestDirectory("00000000000000a1"), "answer.txt"), "hi\n");
    await files.remove("00000000000000a1");
    await files.remove("00000000000000a1");
    expect(existsSync(join(root, "00000000000000a1"))).toBe(false);
  });
});

describe("the file store's format", () => {
  it("writes a Run's record where earlier versions did: state.json, request.json, events.jsonl in its Run directory", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "format-"));
    const store = createFileRunStore(runtimeDir);
    await store.prepare();
    await store.create(record("00000000000000a1"), { cli: "claude", prompt: "hi" });
    await store.appendEvents("00000000000000a1", [{ id: 1, type: "state", data: { state: "queued" } }]);
    const directory = join(runtimeDir, "service", "runs", "00000000000000a1");
    expect(JSON.parse(readFileSync(join(directory, "state.json"), "utf8"))).toEqual(record("00000000000000a1"));
    expect(JSON.parse(readFileSync(join(directory, "request.json"), "utf8"))).toEqual({ cli: "claude", prompt: "hi" });
    expect(readFileSync(join(directory, "events.jsonl"), "utf8")).toBe(`${JSON.stringify({ id: 1, type: "state", data: { state: "queued" } })}\n`);
    expect(statSync(join(directory, "state.json")).mode & 0o777).toBe(0o600);
  });

  it("reads a record an earlier version wrote with its one id, the library's run id it kept beside it left out, and its CLI and model from its request", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "earlier-"));
    const id = "00000000000000a1";
    const saved = {
      id,
      state: "completed",
      createdAt: "2025-01-01T00:00:00.000Z",
      endedAt: "2025-01-01T00:00:05.000Z",
      labels: { a: "1" },
      runId: "00000000000000b2",
    };
    const directory = join(runsDirectory(runtimeDir), id);
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "request.json"), JSON.stringify({ cli: "codex", model: "gpt-5.5", prompt: "hi" }));
    writeFileSync(join(directory, "state.json"), JSON.stringify(saved));
    const { runId: _earlier, ...now } = saved;
    // Recorded before there were tenants: the Operator's; before records kept the CLI and model: as its request named them.
    expect(await everyRun(createFileRunStore(runtimeDir))).toEqual([{ ...now, tenant: "operator", cli: "codex", model: "gpt-5.5" }]);
  });
});

describe("the file store's index (service/runs-index.json and runs-index.jsonl)", () => {
  const ended = (id: string, more: Partial<RunRecord> = {}) =>
    record(id, { state: "completed", reason: "completed", endedAt: "2026-12-01T10:05:00.000Z", usage: { costUsd: 1 }, ...more });
  const reopened = async (runtimeDir: string) => {
    const store = createFileRunStore(runtimeDir, { compactAfterLines: 100 });
    await store.prepare();
    return store;
  };

  it("answers after a restart from the index alone: an ended Run's files are not read at start", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "index-"));
    const store = await reopened(runtimeDir);
    for (const id of ["00000000000000c1", "00000000000000c2"]) {
      await store.create(record(id), {}, undefined);
      await store.saveOutcome(id, { ok: true, result: { sessionId: `s-${id}` } });
      await store.update(ended(id, { idempotencyKey: `k-${id}` }));
    }
    // What a start would read of an ended Run, were it read: made unreadable as JSON.
    writeFileSync(join(runsDirectory(runtimeDir), "00000000000000c1", "state.json"), "{torn");
    writeFileSync(join(runsDirectory(runtimeDir), "00000000000000c1", "outcome.json"), "{torn");
    const after = await reopened(runtimeDir);
    expect((await after.usage(0)).map((u) => u.totals.runs)).toEqual([2]);
    expect(await after.sessionOwner("s-00000000000000c1")).toEqual({ tenant: "acme", cli: "claude" });
    expect(await after.keys.claim("acme", "k-00000000000000c1", "00000000000000zz")).toEqual({ made: "00000000000000c1" });
    expect(await after.tenants()).toEqual(["acme"]);
  });

  it("is mended at start from the Run directories: a state that landed after its index line, a directory it never knew, one removed by hand", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "mend-"));
    const store = await reopened(runtimeDir);
    await store.create(record("00000000000000d1"), {});
    await store.create(record("00000000000000d2"), {});
    // As a crash between a state.json and its index line leaves it: the index still says queued.
    writeFileSync(join(runsDirectory(runtimeDir), "00000000000000d1", "state.json"), JSON.stringify(ended("00000000000000d1")));
    // As a version before the index wrote it.
    mkdirSync(join(runsDirectory(runtimeDir), "00000000000000d3"));
    writeFileSync(join(runsDirectory(runtimeDir), "00000000000000d3", "state.json"), JSON.stringify(ended("00000000000000d3")));
    rmSync(join(runsDirectory(runtimeDir), "00000000000000d2"), { recursive: true });
    // A journal line cut short by a crash.
    writeFileSync(join(runtimeDir, "service", "runs-index.jsonl"), `${readFileSync(join(runtimeDir, "service", "runs-index.jsonl"), "utf8")}{"id":"000`);
    const after = await reopened(runtimeDir);
    expect((await everyRun(after)).map((r) => [r.id, r.state])).toEqual([
      ["00000000000000d1", "completed"],
      ["00000000000000d3", "completed"],
    ]);
    expect(await after.recoverable()).toEqual([]);
    expect((await after.usage(0)).map((u) => u.totals.runs)).toEqual([2]);
    // And the next start finds it mended.
    expect((await everyRun(await reopened(runtimeDir))).map((r) => r.id)).toEqual(["00000000000000d1", "00000000000000d3"]);
  });

  it("folds its journal into a snapshot, and opens the same after", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "compact-"));
    const store = await reopened(runtimeDir);
    const ids = Array.from({ length: 120 }, (_, n) => `0000000000${n.toString(16).padStart(6, "0")}`);
    for (const id of ids) {
      await store.create(record(id), {});
      await store.update(record(id, { state: "running" }));
      await store.update(ended(id));
      await store.update(ended(id));
    }
    await store.remove(ids[0] as string);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(join(runtimeDir, "service", "runs-index.json"))).toBe(true);
    expect(readFileSync(join(runtimeDir, "service", "runs-index.jsonl"), "utf8").split("\n").length).toBeLessThan(ids.length * 3);
    const after = await reopened(runtimeDir);
    expect((await after.usage(0)).map((u) => u.totals.runs)).toEqual([ids.length - 1]);
    expect((await after.page({ limit: 1 })).records.map((r) => r.id)).toEqual([ids.at(-1)]);
  });
});

describe("the file store's index over time: its first format, and its stamp", () => {
  const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "test", "fixtures", "runtime-dir-index-1");
  const snapshotFormat = (runtimeDir: string) =>
    (JSON.parse(readFileSync(join(runtimeDir, "service", "runs-index.json"), "utf8")) as { format?: number }).format;
  const answers = async (store: RunStore) => ({
    runs: (await everyRun(store)).map((r) => [r.id, r.tenant, r.state]),
    usage: (await store.usage(0)).map((u) => [u.tenant, u.totals.runs, u.totals.costUsd]),
    recoverable: (await store.recoverable()).map((r) => r.record.id),
    owing: await store.owing(),
    owner: await store.sessionOwner("session-00000000000000b2"),
    key: await store.keys.claim("beta", "k-b2", "00000000000000ff"),
  });
  const journalEndsStamped = (runtimeDir: string) =>
    readFileSync(join(runtimeDir, "service", "runs-index.jsonl"), "utf8")
      .trim()
      .split("\n")
      .at(-1)
      ?.startsWith('{"stamp":') === true;
  const until = async (what: () => boolean) => {
    for (let waited = 0; !what(); waited += 20) {
      if (waited > 10_000) throw new Error("waited 10 s in vain");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("opens an index its first format held as that code answered, and writes its snapshot anew once", async () => {
    const runtimeDir = join(mkdtempSync(join(scratch, "index-1-")), "rt");
    cpSync(join(fixture, "rt"), runtimeDir, { recursive: true });
    expect(snapshotFormat(runtimeDir)).toBeUndefined();
    const expected = {
      runs: [
        ["00000000000000b1", "acme", "completed"],
        ["00000000000000b2", "beta", "completed"],
        ["00000000000000b4", "acme", "queued"],
        ["00000000000000b5", "acme", "completed"],
      ],
      usage: [
        ["acme", 2, 1],
        ["beta", 1, 0.5],
      ],
      recoverable: ["00000000000000b4"],
      owing: ["00000000000000b1"],
      owner: { tenant: "beta", cli: "claude" },
      key: { made: "00000000000000b2" },
    };
    expect(await answers(createFileRunStore(runtimeDir))).toEqual(expected);
    await until(() => snapshotFormat(runtimeDir) === 2);
    expect(await answers(createFileRunStore(runtimeDir))).toEqual(expected);
  });

  it("trusts its index while runs/ is as its stamp says, and lists runs/ once it changed", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "stamp-"));
    const open = async () => {
      const store = createFileRunStore(runtimeDir, { stampQuietMs: 30 });
      await store.prepare();
      return store;
    };
    const store = await open();
    await store.create(record("00000000000000e1"), {});
    await store.update(record("00000000000000e1", { state: "completed", endedAt: "2026-12-01T10:05:00.000Z" }));
    await until(() => journalEndsStamped(runtimeDir));
    const runs = runsDirectory(runtimeDir);
    const stamped = statSync(runs, { bigint: true }).mtimeNs;
    // A Run directory slipped in with runs/'s time put back: the index, trusted, does not know it.
    mkdirSync(join(runs, "00000000000000e2"));
    writeFileSync(join(runs, "00000000000000e2", "state.json"), JSON.stringify(record("00000000000000e2")));
    execFileSync("touch", ["-m", "-d", `@${stamped / 1_000_000_000n}.${String(stamped % 1_000_000_000n).padStart(9, "0")}`, runs]);
    expect(statSync(runs, { bigint: true }).mtimeNs).toBe(stamped);
    expect((await everyRun(await open())).map((r) => r.id)).toEqual(["00000000000000e1"]);
    // Once runs/ changed, the start lists it and mends the index.
    mkdirSync(join(runs, "00000000000000e3"));
    expect((await everyRun(await open())).map((r) => r.id)).toEqual(["00000000000000e1", "00000000000000e2"]);
    expect(existsSync(join(runs, "00000000000000e3"))).toBe(false);
  });
});

describe("a runtime directory written before the store was an interface (test/fixtures/runtime-dir)", () => {
  const fixture = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "test", "fixtures", "runtime-dir");
  const expected = JSON.parse(readFileSync(join(fixture, "expected.json"), "utf8")) as Record<string, unknown> & {
    readonly records: RunRecord[];
    readonly runs: Record<string, Record<string, unknown>>;
    readonly key: string;
    readonly revokedKey: string;
  };
  const copy = () => {
    const runtimeDir = join(mkdtempSync(join(scratch, "fixture-")), "rt");
    cpSync(join(fixture, "rt"), runtimeDir, { recursive: true });
    return runtimeDir;
  };

  it("opens unchanged in the file store, and reads back every Run as the earlier code did", async () => {
    const runtimeDir = copy();
    const store = await openFileStore(runtimeDir);
    expect(await store.runs.prepare()).toEqual(expected["removedBySubmitCheck"]);
    const records = await everyRun(store.runs);
    expect(records).toEqual(expected.records);
    for (const { id } of records) {
      const listing = (directory: string) => (existsSync(directory) ? readdirSync(directory).sort() : []);
      expect(
        {
          request: await store.runs.request(id).catch(() => null),
          outcome: (await store.runs.outcome(id)) ?? null,
          events: await store.runs.events(id),
          trace: (await store.runs.trace(id)) ?? null,
          a2aTask: (await store.runs.a2aTask(id)) ?? null,
          deliveries: await store.runs.deliveries(id),
          inputs: listing(store.files.inputsDirectory(id)),
          harvest: listing(store.files.harvestDirectory(id)),
        },
        id,
      ).toEqual(expected.runs[id]);
    }
    expect(store.tenancy.tenants.list()).toEqual(expected["tenants"]);
    expect(store.tenancy.keys.list()).toEqual(expected["keys"]);
    const { lastUsedAt: _now, ...verified } = store.tenancy.keys.verify(expected.key) as unknown as Record<string, unknown>;
    const { lastUsedAt: _then, ...verifiedThen } = expected["verified"] as Record<string, unknown>;
    expect(verified).toEqual(verifiedThen);
    expect(store.tenancy.keys.verify(expected.revokedKey)).toBe(expected["verifiedRevoked"]);
    expect(await store.tenancy.audit.read(0, 1000)).toEqual(expected["audit"]);
    expect(await store.feed.after(0, () => true, 1000)).toEqual(expected["feed"]);
    expect(await Promise.all([store.feed.newestId(), store.feed.oldestId()])).toEqual([expected["feedNewestId"], expected["feedOldestId"]]);
    await store.flush();
  });

  it("is read the same by agentcage runs, which opens it read only and changes nothing", async () => {
    const runtimeDir = copy();
    const before = readdirSync(runtimeDir, { recursive: true }).map(String).sort();
    const reader = readFileRunStore(runtimeDir);
    // The unfinished submit is still there: only a serving store prepares the directory.
    expect((await reader.all()).map((r) => r.id)).toEqual(expected.records.map((r) => r.id));
    expect(await reader.events("00000000000000a1")).toEqual(expected.runs["00000000000000a1"]?.["events"]);
    expect(readdirSync(runtimeDir, { recursive: true }).map(String).sort()).toEqual(before);
  });
});
