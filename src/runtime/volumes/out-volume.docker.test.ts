// A Run's volumes against the real engine, as a process that cannot mount runs it (writeBound
// "volume", forced here since tests run as root): past writableBytes (out/, or a writable work/ past
// its inputs) the agent's writes fail and the Run ends write_limit; within it what the agent wrote is
// harvested (a writable work/'s change set) and kept; a link is refused as the Harvest refuses; a
// session store is resumed and kept through its volume. After each, no container, volume or Run directory.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { runVolumeName } from "../index.js";
import type { RunVolumeKind } from "../../subpaths/runtime.js";
import { sessionStorePath } from "../../staging/index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun, docker } from "../../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-out-volume-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const MiB = 1024 * 1024;
let made = 0;

function runtimeFor(
  script: string,
  keepRuns = false,
  more: { readonly writableWork?: boolean; readonly runtimeDir?: string; readonly sessionId?: string } = {},
) {
  const runtimeDir = more.runtimeDir ?? join(scratch, `runs-${made++}`);
  const runtime = createAgentContainerRuntime({
    container: {
      image: TEST_IMAGE,
      logger: capturingLogger().logger,
      staging: { runtimeDir, keepRuns, writableBytes: 8 * MiB, ...(more.writableWork === true ? { writableWork: true } : {}) },
    },
    run: () => ({
      args: ["sh", "-c", script],
      stdin: "",
      outcome: async (stdout) => ({ ...(await collectStdout(stdout)), ...(more.sessionId === undefined ? {} : { sessionId: more.sessionId }) }),
    }),
    writeBound: "volume",
  });
  return { runtime, runtimeDir };
}

const KINDS: readonly RunVolumeKind[] = ["out", "work", "session"];
const volumesOfRun = (runId: string) =>
  KINDS.flatMap((kind) => docker("volume", "ls", "--quiet", "--filter", `name=${runVolumeName(kind, runId)}`).split("\n")).filter((line) => line !== "");
const inputs = () => {
  const directory = mkdtempSync(join(scratch, "inputs-"));
  writeFileSync(join(directory, "a.txt"), "one\n");
  writeFileSync(join(directory, "b.txt"), "two\n");
  writeFileSync(join(directory, "c.txt"), "three\n");
  return { directory };
};
const textOf = (outcome: { readonly result?: unknown }) => Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString();

describe("out/ as a volume of the Run's own", () => {
  it("ends a Run that writes past staging.writableBytes as write_limit, its writes refused, nothing left", async () => {
    const { runtime, runtimeDir } = runtimeFor("head -c 629145600 /dev/zero > out/flood.bin; echo wrote=$?");
    const outcome = await runtime.run({ text: "" }, { harvestTo: join(scratch, "flood-harvest") });
    expect(outcome).toMatchObject({ ok: false, reason: "write_limit" });
    expect(outcome.error).toContain("8388608 bytes (staging.writableBytes)");
    expect(Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString()).not.toContain("wrote=0");
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
    expect(volumesOfRun(outcome.runId)).toEqual([]);
  }, 60_000);

  it("harvests what the agent wrote within the bound, and a kept record keeps it on disk", async () => {
    const { runtime } = runtimeFor(
      "mkdir out/notes && echo 42 > out/answer.txt && echo a > out/notes/a.md && head -c 1048576 /dev/zero > out/one-mib.bin",
      true,
    );
    const harvestTo = join(scratch, "harvest");
    const outcome = await runtime.run({ text: "" }, { harvestTo });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 3, directories: 1, bytes: 3 + 2 + MiB } });
    expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
    expect(readdirSync(join(outcome.runDirectory as string, "work", "out")).sort()).toEqual(["answer.txt", "notes", "one-mib.bin"]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
    expect(volumesOfRun(outcome.runId)).toEqual([]);
  }, 60_000);

  it("refuses a link the agent left in out/ as the Harvest does", async () => {
    const { runtime, runtimeDir } = runtimeFor("echo a > out/a.txt && ln -s /etc/passwd out/passwd");
    const outcome = await runtime.run({ text: "" }, { harvestTo: join(scratch, "link-harvest") });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "symlink" } } });
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect(volumesOfRun(outcome.runId)).toEqual([]);
  }, 60_000);

  it("ends a writable-work Run that edits an input and writes past its bound as write_limit, nothing left", async () => {
    const { runtime, runtimeDir } = runtimeFor("echo edited >> a.txt; head -c 629145600 /dev/zero > flood.bin; echo wrote=$?", false, { writableWork: true });
    const outcome = await runtime.run({ text: "" }, { inputs: inputs(), harvestTo: join(scratch, "work-flood-harvest") });
    expect(outcome).toMatchObject({ ok: false, reason: "write_limit" });
    expect(outcome.error).toContain("8388608 bytes (staging.writableBytes)");
    expect(textOf(outcome)).not.toContain("wrote=0");
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
    expect(volumesOfRun(outcome.runId)).toEqual([]);
  }, 60_000);

  it("gives a writable-work Run's change set: what it edited, added and deleted within the bound", async () => {
    const { runtime, runtimeDir } = runtimeFor(
      "echo edited >> a.txt && rm b.txt && echo new > d.txt && echo 42 > out/answer && head -c 1048576 /dev/zero > one-mib.bin",
      false,
      { writableWork: true },
    );
    const harvestTo = join(scratch, "work-harvest");
    const outcome = await runtime.run({ text: "" }, { inputs: inputs(), harvestTo });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({
      ok: true,
      reason: "completed",
      harvest: { ok: true, changes: { added: ["d.txt", "one-mib.bin"], changed: ["a.txt"], deleted: ["b.txt"], outFiles: 1 } },
    });
    expect(readFileSync(join(harvestTo, "files", "a.txt"), "utf8")).toBe("one\nedited\n");
    expect(readFileSync(join(harvestTo, "changes.patch"), "utf8")).toContain("+edited");
    expect(readFileSync(join(harvestTo, "out", "answer"), "utf8")).toBe("42\n");
    expect(readdirSync(runtimeDir)).toEqual([]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
    expect(volumesOfRun(outcome.runId)).toEqual([]);
  }, 60_000);

  it("resumes a session store through its volume and keeps what the agent added", async () => {
    const store = { namespace: "test", agentPath: "/sessions" } as const;
    const first = runtimeFor("echo turn-1 >> /sessions/log.txt && cat /sessions/log.txt", false, { sessionId: "s-volume" });
    const kept = await first.runtime.run({ text: "" }, { sessionStore: store });
    expect(kept).toMatchObject({ ok: true, session: { id: "s-volume", kept: true } });
    const again = runtimeFor("echo turn-2 >> /sessions/log.txt && cat /sessions/log.txt", false, { sessionId: "s-volume", runtimeDir: first.runtimeDir });
    const resumed = await again.runtime.run({ text: "" }, { sessionStore: { ...store, resume: "s-volume" } });
    expect(resumed).toMatchObject({ ok: true, session: { id: "s-volume", kept: true } });
    expect(textOf(resumed)).toBe("turn-1\nturn-2\n");
    expect(readFileSync(join(sessionStorePath(first.runtimeDir, "test", "s-volume"), "log.txt"), "utf8")).toBe("turn-1\nturn-2\n");
    expect(readdirSync(first.runtimeDir).filter((name) => name !== "sessions")).toEqual([]);
    for (const outcome of [kept, resumed]) {
      expect(containersOfRun(outcome.runId)).toEqual([]);
      expect(volumesOfRun(outcome.runId)).toEqual([]);
    }
  }, 60_000);
});
