// The retention of kept session stores on a real Staging Directory (no engine): a store is removed
// once its last use (its mtime) is older than the retention, a store in use or used since never is,
// and nothing but a store is touched.

import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runDirectory, sessionStorePath, SESSIONS_DIRECTORY } from "./layout.js";
import { sweepSessionStores, type SessionSweepOptions } from "./session-sweep.js";
import { keepSessionStore, openSessionStore, touchSessionStore } from "./sessions.js";
import { unmountUnder } from "./writable.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_MS = 30 * DAY_MS;
const NOW = Date.parse("2030-03-01T00:00:00.000Z");
const AGENT = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
let runtimeDir: string;

beforeEach(async () => {
  runtimeDir = await mkdtemp(join(tmpdir(), "agentcage-session-sweep-"));
});
afterEach(async () => {
  await unmountUnder(runtimeDir);
  await rm(runtimeDir, { recursive: true, force: true });
});

/** A kept store last used `ageMs` before NOW. */
async function makeStore(namespace: string, id: string, ageMs: number): Promise<string> {
  const store = sessionStorePath(runtimeDir, namespace, id);
  await mkdir(join(store, "-work"), { recursive: true });
  await writeFile(join(store, "-work", `${id}.jsonl`), "turn 1\n");
  const when = new Date(NOW - ageMs);
  await utimes(store, when, when);
  return store;
}

const sweep = (options: Partial<SessionSweepOptions> = {}) =>
  sweepSessionStores({ runtimeDir, retentionMs: RETENTION_MS, isInUse: () => false, now: NOW, ...options });
const stores = async (namespace: string): Promise<string[]> => (await readdir(join(runtimeDir, SESSIONS_DIRECTORY, namespace))).sort();

describe("sweepSessionStores removes", () => {
  it("a store last used longer ago than the retention, and says when it was last used", async () => {
    await makeStore("claude", "old-session", RETENTION_MS + 1);
    await makeStore("claude", "recent-session", RETENTION_MS - DAY_MS);
    await makeStore("codex", "older-session", 90 * DAY_MS);
    const removed = await sweep();
    expect(removed.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { namespace: "claude", id: "old-session", lastUsedAt: new Date(NOW - RETENTION_MS - 1).toISOString() },
      { namespace: "codex", id: "older-session", lastUsedAt: new Date(NOW - 90 * DAY_MS).toISOString() },
    ]);
    expect(await stores("claude")).toEqual(["recent-session"]);
    expect(await stores("codex")).toEqual([]);
  });

  it("what an interrupted sweep set aside", async () => {
    const parent = join(runtimeDir, SESSIONS_DIRECTORY, "claude");
    await mkdir(join(parent, ".gone.swept-0123456789abcdef", "-work"), { recursive: true });
    expect(await sweep()).toEqual([]);
    expect(await stores("claude")).toEqual([]);
  });
});

describe("sweepSessionStores keeps", () => {
  it("a store exactly as old as the retention", async () => {
    await makeStore("claude", "edge", RETENTION_MS);
    expect(await sweep()).toEqual([]);
    expect(await stores("claude")).toEqual(["edge"]);
  });

  it("an old store a Run of this process is using", async () => {
    await makeStore("claude", "resumed", 90 * DAY_MS);
    expect(await sweep({ isInUse: (namespace, id) => namespace === "claude" && id === "resumed" })).toEqual([]);
    expect(await readFile(join(sessionStorePath(runtimeDir, "claude", "resumed"), "-work", "resumed.jsonl"), "utf8")).toBe("turn 1\n");
  });

  it("an old store that a Run resumed (touched) between the sweep's look and its removal", async () => {
    await makeStore("claude", "raced", 90 * DAY_MS);
    let looks = 0;
    // The second look is the one after the rename: the Run resumes it just before.
    const isInUse = (): boolean => ++looks > 1;
    expect(await sweep({ isInUse })).toEqual([]);
    expect(await stores("claude")).toEqual(["raced"]);
  });

  it("an old store resumed through touchSessionStore, which counts as its last use", async () => {
    await makeStore("claude", "touched", 90 * DAY_MS);
    expect(await touchSessionStore(runtimeDir, "claude", "touched", new Date(NOW - DAY_MS))).toBe(true);
    expect(await touchSessionStore(runtimeDir, "claude", "never-kept")).toBe(false);
    expect(await sweep()).toEqual([]);
  });

  it("a store a Run has just kept, whatever the age of the one it replaced", async () => {
    const old = await makeStore("claude", "kept-again", 90 * DAY_MS);
    const run = runDirectory(runtimeDir, "00000000000000a1");
    await mkdir(run.root, { recursive: true });
    expect(await openSessionStore(run, runtimeDir, "claude", "kept-again", AGENT)).toBeUndefined();
    await writeFile(join(run.session, "-work", "kept-again.jsonl"), "turn 1\nturn 2\n");
    expect(await keepSessionStore(run, runtimeDir, "claude", "kept-again")).toMatchObject({ ok: true });
    // The real clock: the kept store's mtime is the keep's, not the old store's.
    expect(Date.now() - (await stat(old)).mtimeMs).toBeLessThan(60_000);
    expect(await sweepSessionStores({ runtimeDir, retentionMs: RETENTION_MS, isInUse: () => false })).toEqual([]);
    expect(await readFile(join(old, "-work", "kept-again.jsonl"), "utf8")).toBe("turn 1\nturn 2\n");
  });
});

describe("sweepSessionStores never touches", () => {
  it("what is not a store: a link, a file, a name that is not a session's, anything outside sessions/", async () => {
    const parent = join(runtimeDir, SESSIONS_DIRECTORY, "claude");
    const outside = join(runtimeDir, "outside");
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, "precious"), "keep me");
    await mkdir(parent, { recursive: true });
    await symlink(outside, join(parent, "linked"));
    await writeFile(join(parent, "a-file"), "x");
    await mkdir(join(parent, ".hidden"));
    const ancient = new Date(NOW - 365 * DAY_MS);
    for (const name of [".hidden", "a-file"]) await utimes(join(parent, name), ancient, ancient);
    await utimes(outside, ancient, ancient);
    expect(await sweep()).toEqual([]);
    expect(await stores("claude")).toEqual([".hidden", "a-file", "linked"]);
    expect(await readFile(join(outside, "precious"), "utf8")).toBe("keep me");
  });

  it("a Staging Directory without sessions/", async () => {
    expect(await sweep()).toEqual([]);
    expect(await sweepSessionStores({ runtimeDir: join(runtimeDir, "missing"), retentionMs: RETENTION_MS, isInUse: () => false })).toEqual([]);
  });
});
