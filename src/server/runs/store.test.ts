// The Run Store's contract, run against both implementations (the file store and the in-memory one):
// what each operation promises, in the words of store.ts. Then what only the file store promises: its
// on-disk format, which a runtime directory written before the store was an interface still opens in.

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
    expect(await store.all()).toEqual([]);
    await store.create(record("00000000000000b2", { createdAt: "2026-12-01T10:00:02.000Z" }), { cli: "claude", prompt: "second" });
    await store.create(record("00000000000000b1", { createdAt: "2026-12-01T10:00:01.000Z" }), { cli: "claude", prompt: "first" }, { traceparent: "00-a-b-01" });
    expect((await store.all()).map((r) => r.id)).toEqual(["00000000000000b1", "00000000000000b2"]);
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
    expect(await store.all()).toEqual([{ ...queued, state: "cancelled" }]);
  });

  it("keeps values as JSON does: a field left undefined is not kept, and what a caller holds is not the store's", async () => {
    const store = await opened();
    const request = { cli: "claude", prompt: "hi", model: undefined, labels: { a: "1" } };
    await store.create({ ...record("00000000000000c2"), key: undefined } as unknown as RunRecord, request);
    request.labels.a = "changed";
    const [listed] = await store.all();
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
    expect(await store.all()).toEqual([]);
    expect(await store.events("00000000000000f2")).toEqual([]);
    expect(await store.outcome("00000000000000f2")).toBeUndefined();
    await expect(store.request("00000000000000f2")).rejects.toThrow();
    await expect(store.update(record("00000000000000f2", { state: "failed" }))).rejects.toThrow();
    await expect(store.appendEvents("00000000000000f2", [{ id: 2, type: "state", data: {} }])).rejects.toThrow();
    await expect(store.saveOutcome("00000000000000f2", {})).rejects.toThrow();
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
    expect(await createFileRunStore(runtimeDir).all()).toEqual([{ ...now, tenant: "operator", cli: "codex", model: "gpt-5.5" }]);
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
    const records = await store.runs.all();
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
