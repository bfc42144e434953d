// The Run's deadline and its caller's cancel cover staging: a Run stopped while its inputs are
// copied ends as cancelled (or timeout), says so, and leaves no Run directory behind.

import { watch } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { createUnreachableEngine } from "../../../test/support/fake-engine.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentcage-stage-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** An input tree big enough that copying it takes far longer than noticing its Run directory. */
async function bigInputs(files: number): Promise<string> {
  const inputs = path.join(root, "inputs");
  for (let d = 0; d < files / 500; d++) {
    await mkdir(path.join(inputs, `d${d}`), { recursive: true });
    await Promise.all(Array.from({ length: 500 }, (_, f) => writeFile(path.join(inputs, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`)));
  }
  return inputs;
}

describe("staging a Run", () => {
  it("stops when the caller cancels mid-copy, ends as cancelled and leaves no Run directory", async () => {
    const inputs = await bigInputs(20_000);
    const runtimeDir = path.join(root, "runs");
    await mkdir(runtimeDir);
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: pino({ level: "silent" }), staging: { runtimeDir } },
      run: (prompt) => ({ args: [], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
      engine: createUnreachableEngine(),
    });
    const controller = new AbortController();
    // The Run directory appearing means staging has begun: cancel then, mid-copy.
    const watcher = watch(runtimeDir, () => controller.abort());
    try {
      const outcome = await runtime.run({ text: "hi" }, { inputs: { directory: inputs }, signal: controller.signal });
      expect(outcome).toMatchObject({ ok: false, reason: "cancelled" });
      expect(outcome.error).toBe("the Run was cancelled by the caller while its inputs were staged");
    } finally {
      watcher.close();
    }
    expect(await readdir(runtimeDir)).toEqual([]);
  });
});
