// Session stores on disk: a Run that resumes gets a copy of the kept store; what a Run leaves
// replaces it only when it passes the Harvest's rules, and a store that breaks them leaves the
// kept one as it was.

import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runDirectory, sessionStorePath } from "./layout.js";
import { keepSessionStore, openSessionStore, sessionStoreExists } from "./sessions.js";
import { unmountUnder } from "./writable.js";

const RUN_ONE = "00000000000000a1";
const RUN_TWO = "00000000000000a2";
const SESSION = "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c";
const AGENT = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
let runtimeDir: string;

beforeEach(async () => {
  runtimeDir = await mkdtemp(join(tmpdir(), "agentcage-sessions-"));
  for (const runId of [RUN_ONE, RUN_TWO]) await mkdir(runDirectory(runtimeDir, runId).root, { recursive: true });
});
afterEach(async () => {
  // As root the working copies are tmpfs mounts of their own (the bound on what an agent writes there).
  await unmountUnder(runtimeDir);
  await rm(runtimeDir, { recursive: true, force: true });
});

describe("a session store", () => {
  it("is kept after one Run and handed, as a copy, to the Run that resumes it", async () => {
    const one = runDirectory(runtimeDir, RUN_ONE);
    expect(await openSessionStore(one, runtimeDir, "claude", undefined, AGENT)).toBeUndefined();
    await mkdir(join(one.session, "-work"));
    await writeFile(join(one.session, "-work", `${SESSION}.jsonl`), "turn 1\n");
    expect(await keepSessionStore(one, runtimeDir, "claude", SESSION)).toMatchObject({ ok: true, files: 1 });
    expect(await sessionStoreExists(runtimeDir, "claude", SESSION)).toBe(true);
    expect(await sessionStoreExists(runtimeDir, "codex", SESSION)).toBe(false);

    const two = runDirectory(runtimeDir, RUN_TWO);
    expect(await openSessionStore(two, runtimeDir, "claude", SESSION, AGENT)).toBeUndefined();
    expect(await readFile(join(two.session, "-work", `${SESSION}.jsonl`), "utf8")).toBe("turn 1\n");
  });

  it("that a Run left with a link in it is not kept, and the kept one stays as it was", async () => {
    const one = runDirectory(runtimeDir, RUN_ONE);
    await openSessionStore(one, runtimeDir, "codex", undefined, AGENT);
    await writeFile(join(one.session, "rollout.jsonl"), "kept\n");
    await keepSessionStore(one, runtimeDir, "codex", SESSION);

    const two = runDirectory(runtimeDir, RUN_TWO);
    await openSessionStore(two, runtimeDir, "codex", SESSION, AGENT);
    await writeFile(join(two.session, "rollout.jsonl"), "tampered\n");
    await symlink("/etc/passwd", join(two.session, "escape"));
    expect(await keepSessionStore(two, runtimeDir, "codex", SESSION)).toMatchObject({ ok: false, refusal: { reason: "symlink" } });
    expect(await readFile(join(sessionStorePath(runtimeDir, "codex", SESSION), "rollout.jsonl"), "utf8")).toBe("kept\n");
  });

  it("is left as copied for a numeric agent when a volume of the Run's own bounds it, and granted to a named one", async () => {
    const ours = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
    const one = runDirectory(runtimeDir, RUN_ONE);
    expect(await openSessionStore(one, runtimeDir, "claude", undefined, "10002:10003", false)).toBeUndefined();
    expect(await lstat(one.session)).toMatchObject({ ...ours, mode: 0o40755 });

    const two = runDirectory(runtimeDir, RUN_TWO);
    expect(await openSessionStore(two, runtimeDir, "claude", undefined, "agent", false)).toBeUndefined();
    expect((await lstat(two.session)).mode & 0o777).toBe(0o777);
  });
});
