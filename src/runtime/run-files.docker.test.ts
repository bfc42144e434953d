// runFiles "engine" against the real engine: the agent's container binds nothing of this disk (its
// inputs come read-only in a volume of its own, its out/ in another), and every hostile thing an
// agent can leave in out/ is refused with the same reason as on disk, nothing half-written in the
// destination, and no container, volume or Run directory left whatever ended the Run.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { newRunId, runVolumeName } from "./index.js";
import type { RunFiles, RunVolumeKind } from "../subpaths/runtime.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun, docker } from "../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-run-files-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const MiB = 1024 * 1024;
let made = 0;
const fresh = (name: string) => join(scratch, `${name}-${made++}`);

function runtimeFor(script: string, runFiles: RunFiles, more: { readonly timeoutSeconds?: number; readonly writableWork?: boolean } = {}) {
  const runtimeDir = fresh("runs");
  const runtime = createAgentContainerRuntime({
    container: {
      image: TEST_IMAGE,
      logger: capturingLogger().logger,
      staging: { runtimeDir, writableBytes: 128 * MiB, ...(more.writableWork === true ? { writableWork: true } : {}) },
      ...(more.timeoutSeconds === undefined ? {} : { timeoutSeconds: more.timeoutSeconds }),
    },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: collectStdout }),
    runFiles,
  });
  return { runtime, runtimeDir };
}

const KINDS: readonly RunVolumeKind[] = ["inputs", "out", "work", "session"];
const volumesOfRun = (runId: string) =>
  KINDS.flatMap((kind) => docker("volume", "ls", "--quiet", "--filter", `name=${runVolumeName(kind, runId)}`).split("\n")).filter((line) => line !== "");
const textOf = (outcome: { readonly result?: unknown }) => Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString();
const inputs = () => {
  const directory = mkdtempSync(join(scratch, "inputs-"));
  writeFileSync(join(directory, "a.txt"), "one\n");
  return { directory };
};

/** Nothing of the Run is left: no container, no volume, no Run directory. */
function expectNothingLeft(runId: string, runtimeDir: string): void {
  expect(containersOfRun(runId)).toEqual([]);
  expect(volumesOfRun(runId)).toEqual([]);
  expect(readdirSync(runtimeDir)).toEqual([]);
}

/** The Mounts the engine says a Run's container has, read while it runs (its script sleeps for it). */
async function mountsWhileRunning(runId: string): Promise<Array<{ Type: string; Destination: string; RW: boolean }>> {
  for (let tries = 0; tries < 100; tries++) {
    try {
      return JSON.parse(docker("inspect", "--format", "{{json .Mounts}}", `agentcage-${runId}`));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`the container of ${runId} never appeared`);
}

describe('runFiles "engine": a Run with nothing of this disk', () => {
  it("binds nothing: its inputs come read-only through a volume, its out/ comes back through the engine", async () => {
    const script = "cat a.txt; echo no >> a.txt 2>/dev/null && echo wrote-input; echo 42 > out/answer.txt; sleep 2";
    const harvested: Record<string, unknown> = {};
    for (const runFiles of ["disk", "engine"] as const) {
      const { runtime, runtimeDir } = runtimeFor(script, runFiles);
      const runId = newRunId();
      const harvestTo = fresh("harvest");
      const running = runtime.run({ text: "" }, { runId, inputs: inputs(), harvestTo });
      const mounts = await mountsWhileRunning(runId);
      const outcome = await running;
      const types = mounts.map((mount) => mount.Type);
      if (runFiles === "disk") expect(types).toContain("bind");
      else {
        expect(types.every((type) => type === "volume" || type === "tmpfs")).toBe(true);
        expect(mounts.find((mount) => mount.Destination === "/work")).toMatchObject({ Type: "volume", RW: false });
        expect(mounts.find((mount) => mount.Destination === "/work/out")).toMatchObject({ Type: "volume", RW: true });
      }
      expect(textOf(outcome)).toBe("one\n");
      expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
      harvested[runFiles] = { reason: outcome.reason, ok: outcome.ok, harvest: outcome.harvest };
      expectNothingLeft(runId, runtimeDir);
    }
    expect(harvested["engine"]).toEqual(harvested["disk"]);
  }, 60_000);

  it("gives a writable work/ back through the engine: the same change set as on disk", async () => {
    const script = "echo edited >> a.txt && echo new > b.txt && echo 42 > out/answer";
    const changes: Record<string, unknown> = {};
    for (const runFiles of ["disk", "engine"] as const) {
      const { runtime, runtimeDir } = runtimeFor(script, runFiles, { writableWork: true });
      const outcome = await runtime.run({ text: "" }, { inputs: inputs(), harvestTo: fresh("work-harvest") });
      expect(outcome).toMatchObject({ ok: true, reason: "completed" });
      changes[runFiles] = outcome.harvest;
      expectNothingLeft(outcome.runId, runtimeDir);
    }
    expect(changes["engine"]).toEqual(changes["disk"]);
  }, 60_000);
});

/** What the agent leaves in out/, and the reason the Harvest on disk refuses it for. */
const HOSTILE: ReadonlyArray<readonly [string, string, string]> = [
  ["a symbolic link out", "echo a > out/a.txt && ln -s /etc/passwd out/passwd", "symlink"],
  ["a hard link", "echo a > out/a.txt && ln out/a.txt out/b.txt", "hardlink"],
  ["a FIFO", "echo a > out/a.txt && mkfifo out/pipe", "special_file"],
  ["a setuid file", "echo a > out/a.txt && chmod 4755 out/a.txt", "special_mode"],
  ["a file its owner cannot read", "echo a > out/a.txt && chmod 200 out/a.txt", "unreadable"],
  ["a directory its owner cannot read", "mkdir out/d && echo a > out/d/a.txt && chmod 000 out/d", "unreadable"],
  ["a tree too deep", "mkdir -p out/1/2/3/4/5/6/7/8/9 && echo a > out/1/2/3/4/5/6/7/8/9/f", "too_deep"],
  ["a file too large", "head -c 9437184 /dev/zero > out/big.bin", "file_too_large"],
  ["a sparse file", "truncate -s 1073741824 out/sparse.bin", "file_too_large"],
  ["more bytes than the Harvest takes", "for i in 1 2 3 4 5 6 7 8 9 10; do head -c 7340032 /dev/zero > out/f$i.bin; done", "total_too_large"],
  ["more entries than the Harvest takes", "mkdir out/many && cd out/many && i=0; while [ $i -lt 2001 ]; do : > f$i; i=$((i+1)); done", "too_many_entries"],
];

describe('runFiles "engine": every refusal of the Harvest on disk', () => {
  it.each(HOSTILE)(
    "refuses %s as the Harvest on disk does, nothing in the destination, nothing left",
    async (_, script, reason) => {
      const refusals: Record<string, { reason: string; entry: string } | undefined> = {};
      for (const runFiles of ["disk", "engine"] as const) {
        const { runtime, runtimeDir } = runtimeFor(script, runFiles);
        const harvestTo = fresh("hostile-harvest");
        const outcome = await runtime.run({ text: "" }, { harvestTo });
        expect(outcome, runFiles).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason } } });
        const refusal = outcome.harvest?.ok === false ? outcome.harvest.refusal : undefined;
        refusals[runFiles] = refusal === undefined ? undefined : { reason: refusal.reason, entry: refusal.entry };
        // Nothing half-written: the destination is as it was (not there).
        expect(existsSync(harvestTo) ? readdirSync(harvestTo) : [], runFiles).toEqual([]);
        expectNothingLeft(outcome.runId, runtimeDir);
      }
      // A hard link's two names are one file: which of them each path meets first may differ.
      if (reason === "hardlink") expect(refusals["engine"]?.reason).toBe(refusals["disk"]?.reason);
      else if (reason !== "too_many_entries" && reason !== "total_too_large") expect(refusals["engine"]).toEqual(refusals["disk"]);
      else expect(refusals["engine"]?.reason).toBe(refusals["disk"]?.reason);
    },
    120_000,
  );

  it("copies back the names a Harvest on disk takes (a newline, a leading dash, dots) under the same names", async () => {
    const script = "echo a > \"out/$(printf 'new\\nline')\" && echo c > out/-rf && echo d > out/... && echo e > out/caf\u00e9";
    const listings: Record<string, string[]> = {};
    for (const runFiles of ["disk", "engine"] as const) {
      const { runtime, runtimeDir } = runtimeFor(script, runFiles);
      const harvestTo = fresh("names-harvest");
      const outcome = await runtime.run({ text: "" }, { harvestTo });
      expect(outcome, runFiles).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 4 } });
      listings[runFiles] = readdirSync(harvestTo, { encoding: "buffer" })
        .map((name) => name.toString("hex"))
        .sort();
      expectNothingLeft(outcome.runId, runtimeDir);
    }
    expect(listings["engine"]).toEqual(listings["disk"]);
  }, 60_000);

  it("refuses a name that is not UTF-8, which the engine's archive cannot carry intact, where the disk copies it", async () => {
    const { runtime, runtimeDir } = runtimeFor("echo a > out/a.txt && echo b > \"out/$(printf 'bad\\377byte')\"", "engine");
    const harvestTo = fresh("bad-name-harvest");
    const outcome = await runtime.run({ text: "" }, { harvestTo });
    expect(outcome).toMatchObject({ ok: false, reason: "harvest_refused", harvest: { ok: false, refusal: { reason: "bad_name" } } });
    expect(existsSync(harvestTo)).toBe(false);
    expectNothingLeft(outcome.runId, runtimeDir);
  }, 60_000);
});

describe('runFiles "engine": nothing left behind', () => {
  it("removes the volumes and their holder after a Run that fails, times out or is cancelled", async () => {
    const failed = runtimeFor("echo 42 > out/a; exit 3", "engine");
    const failure = await failed.runtime.run({ text: "" }, { inputs: inputs() });
    expect(failure.exit?.code).toBe(3);
    expectNothingLeft(failure.runId, failed.runtimeDir);

    const slow = runtimeFor("echo 42 > out/a; sleep 60", "engine", { timeoutSeconds: 2 });
    const timedOut = await slow.runtime.run({ text: "" }, { inputs: inputs() });
    expect(timedOut.reason).toBe("timeout");
    expectNothingLeft(timedOut.runId, slow.runtimeDir);

    const cancelled = runtimeFor("echo 42 > out/a; sleep 60", "engine");
    const controller = new AbortController();
    const running = cancelled.runtime.run({ text: "" }, { inputs: inputs(), signal: controller.signal });
    setTimeout(() => controller.abort(), 1500);
    const outcome = await running;
    expect(outcome.reason).toBe("cancelled");
    expectNothingLeft(outcome.runId, cancelled.runtimeDir);
    for (const ended of [failure, timedOut, outcome]) expect(docker("ps", "-aq", "--filter", `name=agentcage-${ended.runId}-volumes`)).toBe("");
  }, 90_000);

  it("leaves the volumes and their holder to the next process's sweep when its own is SIGKILLed mid-Run", async () => {
    const runtimeDir = fresh("orphans");
    const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
    const child = spawn(
      process.execPath,
      [join(repo, "test/support/run-in-child.mjs"), JSON.stringify({ runtimeDir, image: TEST_IMAGE, seconds: 1000, runFiles: "engine" })],
      {
        cwd: repo,
      },
    );
    const session = await new Promise<string>((done, fail) => {
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) done((JSON.parse(text.split("\n")[0] as string) as { session: string }).session);
      });
      child.on("close", () => fail(new Error("the child ended before it said its session")));
    });
    let runId = "";
    for (let tries = 0; tries < 300 && runId === ""; tries++) {
      runId =
        docker("ps", "--filter", `label=agentcage.session=${session}`, "--filter", "name=agentcage-", "--format", '{{.Label "agentcage.run"}} {{.Names}}')
          .split("\n")
          .filter((line) => line !== "" && !line.endsWith("-volumes"))
          .map((line) => line.split(" ")[0] as string)[0] ?? "";
      if (runId === "") await new Promise((wait) => setTimeout(wait, 100));
    }
    expect(runId).not.toBe("");
    child.kill("SIGKILL");
    await new Promise((done) => child.once("close", done));
    expect(volumesOfRun(runId).length).toBe(2);
    expect(docker("ps", "-aq", "--filter", `name=agentcage-${runId}-volumes`)).not.toBe("");
    const swept = await runtimeFor("true", "engine").runtime.sweep();
    expect(swept.removedVolumes).toEqual(expect.arrayContaining([runVolumeName("inputs", runId), runVolumeName("out", runId)]));
    expect(volumesOfRun(runId)).toEqual([]);
    expect(containersOfRun(runId)).toEqual([]);
    expect(docker("ps", "-aq", "--filter", `name=agentcage-${runId}-volumes`)).toBe("");
  }, 90_000);
});
