// The Run Store's contract (test/support/run-store-contract.ts), run against the file store and the
// in-memory one (the Postgres store's run is store-postgres.postgres.test.ts). Then what only the file
// store promises: its on-disk format, which a runtime directory written before the store was an
// interface still opens in, and its index files.

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openFileStore } from "../serve/index.js";
import { describeRunStoreContract, everyRun, record } from "../../../test/support/run-store-contract.js";
import type { RunRecord, RunStore } from "./store.js";
import { createFileRunFiles, createFileRunStore, fileRuns, readFileRunStore, runsDirectory } from "./store-files.js";
import { createMemoryRunStore } from "./store-memory.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-store-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describeRunStoreContract(
  "the file store",
  async () => {
    const runtimeDir = mkdtempSync(join(scratch, "rt-"));
    return { store: createFileRunStore(runtimeDir), reopen: async () => createFileRunStore(runtimeDir) };
  },
  { restarts: true },
);
describeRunStoreContract("the in-memory store", async () => ({ store: createMemoryRunStore() }), { restarts: false });

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

describe("the file store's stamp, as the service uses it", () => {
  it("stamps its journal after a Run started, whose directory its start opened again", async () => {
    const runtimeDir = mkdtempSync(join(scratch, "stamp-started-"));
    const { store, files } = fileRuns(runtimeDir);
    await store.prepare();
    // A submit opens the Run's directory, then records it; its start opens the directory again.
    await files.open("00000000000000f1");
    await store.create(record("00000000000000f1"), {});
    await files.open("00000000000000f1");
    await store.update(record("00000000000000f1", { state: "completed", endedAt: "2026-12-01T10:05:00.000Z" }));
    const stamped = () =>
      readFileSync(join(runtimeDir, "service", "runs-index.jsonl"), "utf8")
        .trim()
        .split("\n")
        .at(-1)
        ?.startsWith('{"stamp":') === true;
    for (let waited = 0; !stamped(); waited += 50) {
      if (waited > 10_000) throw new Error("no stamp in 10 s: the directory opened again at the Run's start was never settled");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 30_000);
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
