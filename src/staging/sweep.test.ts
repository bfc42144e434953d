// The disk sweep on a real Staging Directory (no engine): it removes this owner's Run directories
// that no Run will finish or that outlived keepRuns, and never touches anything else.
// As root a run.json of mode 0000 is still readable, so "unreadable" is made here with a run.json
// that is a directory, which fails the read for any user.

import { lstat, mkdir, mkdtemp, opendir, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runDirectory } from "./layout.js";
import { DAY_MS, DEFAULT_KEPT_RUN_RETENTION_DAYS } from "../container/index.js";
import type { RunInfo } from "./prepare.js";
import { sweepRunDirectories, type DiskSweepOptions } from "./sweep.js";

const OWNER = "reviewer";
const CREATED = Date.parse("2030-01-02T03:04:05.678Z");
const HOUR_MS = 60 * 60 * 1000;
const MAX_RUN_DIRECTORY_AGE_MS = DEFAULT_KEPT_RUN_RETENTION_DAYS * DAY_MS;

let scratch: string;
let runtimeDir: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "agentcage-sweep-"));
  runtimeDir = join(scratch, "runtime");
  await mkdir(runtimeDir);
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

type RunSpec = { readonly owner?: string; readonly done?: boolean; readonly info?: Partial<RunInfo> };

/** A Run directory as prepareRunDirectory and the record leave it: run.json, work/out/, maybe done. */
async function makeRun(runId: string, { owner = OWNER, done = false, info = {} }: RunSpec = {}): Promise<void> {
  const dir = runDirectory(runtimeDir, runId);
  await mkdir(dir.out, { recursive: true });
  await writeFile(join(dir.out, "answer.txt"), "answer");
  await writeFile(dir.info, `${JSON.stringify({ runId, owner, createdAt: new Date(CREATED).toISOString(), ...info })}\n`);
  if (done) await writeFile(dir.done, "2030-01-02T03:05:00.000Z\n");
}

/** Every path below the Staging Directory with its content or link target: what "untouched" compares. */
async function everything(): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const visit = async (directory: string, prefix: string): Promise<void> => {
    for await (const dirent of await opendir(directory)) {
      const full = join(directory, dirent.name);
      const rel = prefix === "" ? dirent.name : `${prefix}/${dirent.name}`;
      const stats = await lstat(full);
      if (stats.isDirectory()) {
        result[rel] = "<directory>";
        await visit(full, rel);
      } else if (stats.isSymbolicLink()) result[rel] = `-> ${await readlink(full)}`;
      else result[rel] = await readFile(full, "utf8");
    }
  };
  await visit(runtimeDir, "");
  return result;
}

const sweep = async (options: Partial<DiskSweepOptions> = {}): Promise<string[]> =>
  (await sweepRunDirectories({ runtimeDir, owner: OWNER, keepRuns: false, isOrphaned: () => true, now: CREATED + HOUR_MS, ...options })).sort();

const remaining = async (): Promise<string[]> => (await readdir(runtimeDir)).sort();

describe("sweepRunDirectories removes this owner's Run directories", () => {
  it("of a Run that crashed (no done marker) when keepRuns is off", async () => {
    await makeRun("00000000000000c1");

    expect(await sweep({ keepRuns: false })).toEqual(["00000000000000c1"]);
    expect(await remaining()).toEqual([]);
  });

  it("of a Run that crashed more than a day ago, even with keepRuns", async () => {
    await makeRun("00000000000000c1");

    expect(await sweep({ keepRuns: true, now: CREATED + 2 * MAX_RUN_DIRECTORY_AGE_MS })).toEqual(["00000000000000c1"]);
  });

  it("of a finished Run when keepRuns is off", async () => {
    await makeRun("00000000000000d1", { done: true });

    expect(await sweep({ keepRuns: false })).toEqual(["00000000000000d1"]);
    expect(await remaining()).toEqual([]);
  });

  it("of a finished Run older than a day with keepRuns", async () => {
    await makeRun("00000000000000d2", { done: true });

    expect(await sweep({ keepRuns: true, now: CREATED + MAX_RUN_DIRECTORY_AGE_MS + 1 })).toEqual(["00000000000000d2"]);
    expect(await remaining()).toEqual([]);
  });

  it("of a finished Run past a retention of its own (keptRunRetentionMs), and keeps it until then", async () => {
    await makeRun("00000000000000d2", { done: true });
    const retention = 7 * MAX_RUN_DIRECTORY_AGE_MS;

    expect(await sweep({ keepRuns: true, keptRunRetentionMs: retention, now: CREATED + retention })).toEqual([]);
    expect(await sweep({ keepRuns: true, keptRunRetentionMs: retention, now: CREATED + retention + 1 })).toEqual(["00000000000000d2"]);
    expect(await remaining()).toEqual([]);
  });

  it("and only those, returning their run ids", async () => {
    await makeRun("00000000000000c1");
    await makeRun("00000000000000d1", { done: true });
    await makeRun("00000000000000d2", { done: true, info: { createdAt: new Date(CREATED - 2 * MAX_RUN_DIRECTORY_AGE_MS).toISOString() } });
    await makeRun("00000000000000d3", { done: true });

    expect(await sweep({ keepRuns: true })).toEqual(["00000000000000d2"]);
    expect(await remaining()).toEqual(["00000000000000c1", "00000000000000d1", "00000000000000d3"]);
  });
});

describe("sweepRunDirectories keeps", () => {
  it("with keepRuns, a Run younger than a day that never finished, whose record is all that says what happened", async () => {
    await makeRun("00000000000000c1");

    expect(await sweep({ keepRuns: true })).toEqual([]);
    expect(await remaining()).toEqual(["00000000000000c1"]);
  });

  it("a finished Run younger than a day with keepRuns, whole", async () => {
    await makeRun("00000000000000d1", { done: true });
    const before = await everything();

    expect(await sweep({ keepRuns: true, now: CREATED + MAX_RUN_DIRECTORY_AGE_MS - 1 })).toEqual([]);
    expect(await everything()).toEqual(before);
  });

  it("a finished Run exactly a day old with keepRuns", async () => {
    await makeRun("00000000000000d1", { done: true });

    expect(await sweep({ keepRuns: true, now: CREATED + MAX_RUN_DIRECTORY_AGE_MS })).toEqual([]);
    expect(await remaining()).toEqual(["00000000000000d1"]);
  });
});

describe("sweepRunDirectories never touches", () => {
  const old = { now: CREATED + 2 * MAX_RUN_DIRECTORY_AGE_MS } as const;

  it.each<[string, () => Promise<void>]>([
    ["another owner's Run directory", () => makeRun("00000000000000a1", { owner: "someone-else" })],
    ["a directory named with 15 hex digits", () => makeRun("00000000000000a")],
    ["a directory named with 17 hex digits", () => makeRun("00000000000000a12")],
    ["a directory named with upper-case hex digits", () => makeRun("00000000000000A1")],
    ["a directory named like a run id with a suffix", () => makeRun("00000000000000a1.old")],
    ["a directory named otherwise", () => makeRun("tmp")],
    ["a Run directory whose run.json names another runId", () => makeRun("00000000000000a1", { info: { runId: "00000000000000b2" } })],
    [
      "a Run directory without run.json",
      async () => {
        await mkdir(join(runtimeDir, "00000000000000a1", "work", "out"), { recursive: true });
      },
    ],
    [
      "a Run directory whose run.json cannot be read",
      async () => {
        await mkdir(join(runtimeDir, "00000000000000a1", "run.json"), { recursive: true });
      },
    ],
    [
      "a Run directory whose run.json is not JSON",
      async () => {
        await mkdir(join(runtimeDir, "00000000000000a1"));
        await writeFile(join(runtimeDir, "00000000000000a1", "run.json"), '{"runId":"00000000000000a1","owner":"revi');
      },
    ],
    [
      "a Run directory whose run.json lacks createdAt",
      async () => {
        await mkdir(join(runtimeDir, "00000000000000a1"));
        await writeFile(join(runtimeDir, "00000000000000a1", "run.json"), JSON.stringify({ runId: "00000000000000a1", owner: OWNER }));
      },
    ],
    ["a plain file named like a run id", () => writeFile(join(runtimeDir, "00000000000000a1"), JSON.stringify({ owner: OWNER }))],
    [
      "a link named like a run id, to a Run directory of this owner elsewhere",
      async () => {
        const elsewhere = join(scratch, "elsewhere");
        await mkdir(elsewhere);
        await writeFile(join(elsewhere, "run.json"), JSON.stringify({ runId: "00000000000000a1", owner: OWNER, createdAt: new Date(CREATED).toISOString() }));
        await symlink(elsewhere, join(runtimeDir, "00000000000000a1"));
      },
    ],
  ])("%s", async (_what, plant) => {
    await plant();
    const before = await everything();

    expect(await sweep({ ...old, keepRuns: false })).toEqual([]);
    expect(await everything()).toEqual(before);
  });

  it("a Run its caller says is not orphaned (live, or its process still runs), finished or not, whatever its age", async () => {
    await makeRun("00000000000000e1");
    await makeRun("00000000000000e2", { done: true });
    const before = await everything();
    const asked: string[] = [];

    const removed = await sweep({
      ...old,
      isOrphaned: (info) => {
        asked.push(info.runId);
        return false;
      },
    });

    expect(removed).toEqual([]);
    expect(await everything()).toEqual(before);
    expect(asked.sort()).toEqual(["00000000000000e1", "00000000000000e2"]);
  });
});

describe("sweepRunDirectories on a missing Staging Directory", () => {
  it("returns no run ids and creates nothing", async () => {
    const missing = join(runtimeDir, "missing");

    expect(await sweepRunDirectories({ runtimeDir: missing, owner: OWNER, keepRuns: false, isOrphaned: () => true })).toEqual([]);
    expect(await remaining()).toEqual([]);
  });
});

describe("sweepRunDirectories and secret files", () => {
  it("removes a crashed Run's secret files even when keepRuns keeps the rest of its record", async () => {
    await makeRun("00000000000000c1");
    const dir = runDirectory(runtimeDir, "00000000000000c1");
    await mkdir(dir.secrets);
    await writeFile(join(dir.secrets, "0"), '{"tokens":{"refresh_token":"rt-secret"}}');

    expect(await sweep({ keepRuns: true })).toEqual([]);
    expect(await readdir(dir.root)).not.toContain("secrets");
    expect(await readdir(dir.out)).toEqual(["answer.txt"]);
  });
});
