// What an agent can write is bounded, against the real engine: past staging.writableBytes its
// writes fail, the Run ends as write_limit naming the limit, and the host's disk holds nothing of it.

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun } from "../../test/support/engine.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-writable-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const MiB = 1024 * 1024;

function runtimeFor(script: string, writableWork: boolean, keepRuns = false) {
  const runtimeDir = join(scratch, `runs-${Math.random().toString(16).slice(2)}`);
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir, writableWork, keepRuns, writableBytes: 8 * MiB } },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: collectStdout }),
  });
  return { runtime, runtimeDir };
}

const mounts = async () => (await readFile("/proc/self/mountinfo", "utf8")).split("\n").filter((line) => line.includes(scratch));

describe("an agent that writes past staging.writableBytes", () => {
  for (const writableWork of [false, true]) {
    it(`ends as write_limit with ${writableWork ? "a writable work/" : "out/"}, its writes refused, nothing left on the host`, async () => {
      const inputs = join(scratch, `inputs-${writableWork}`);
      mkdirSync(inputs, { recursive: true });
      writeFileSync(join(inputs, "big-input.bin"), Buffer.alloc(4 * MiB, 7)); // inputs do not count against the bound
      const { runtime, runtimeDir } = runtimeFor("head -c 629145600 /dev/zero > out/flood.bin; echo wrote=$?", writableWork);
      const outcome = await runtime.run({ text: "" }, { inputs: { directory: inputs } });
      expect(outcome).toMatchObject({ ok: false, reason: "write_limit" });
      expect(outcome.error).toContain("8388608 bytes (staging.writableBytes)");
      expect(Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString()).not.toContain("wrote=0");
      expect(readdirSync(runtimeDir)).toEqual([]);
      expect(await mounts()).toEqual([]);
      expect(containersOfRun(outcome.runId)).toEqual([]);
    }, 60_000);
  }

  it("completes within the bound, and a kept record keeps what the agent wrote on disk", async () => {
    const { runtime } = runtimeFor("head -c 1048576 /dev/zero > out/one-mib.bin", false, true);
    const outcome = await runtime.run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed" });
    expect(readdirSync(join(outcome.runDirectory as string, "work", "out"))).toEqual(["one-mib.bin"]);
    expect(await mounts()).toEqual([]);
  }, 60_000);
});
