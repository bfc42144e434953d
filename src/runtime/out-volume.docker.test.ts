// out/ bounded by a volume of the Run's own, against the real engine, as a process that cannot
// mount runs it (writeBound "volume", forced here since tests run as root): past writableBytes the
// agent's writes fail and the Run ends write_limit; within it what the agent wrote is harvested and
// kept; a link is refused as the Harvest refuses. After each, no container, volume or Run directory.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime, outVolumeName } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun, docker } from "../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-out-volume-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const MiB = 1024 * 1024;
let made = 0;

function runtimeFor(script: string, keepRuns = false) {
  const runtimeDir = join(scratch, `runs-${made++}`);
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir, keepRuns, writableBytes: 8 * MiB } },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: collectStdout }),
    writeBound: "volume",
  });
  return { runtime, runtimeDir };
}

const volumesOfRun = (runId: string) => docker("volume", "ls", "--quiet", "--filter", `name=${outVolumeName(runId)}`).split("\n").filter((line) => line !== "");

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
    const { runtime } = runtimeFor("mkdir out/notes && echo 42 > out/answer.txt && echo a > out/notes/a.md && head -c 1048576 /dev/zero > out/one-mib.bin", true);
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
});
