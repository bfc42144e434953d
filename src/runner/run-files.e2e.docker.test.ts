// The real claude CLI (images/agent) with runFiles "engine": its Run binds nothing of this disk, yet
// the file it writes with its Write tool comes back through the engine and is harvested, as on disk,
// its inputs read from a read-only volume, and nothing of the Run is left on the engine.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentRunner } from "../index.js";
import { runVolumeName } from "../runtime/index.js";
import { capturingLogger, containersOfRun, docker } from "../../test/support/engine.js";
import { AGENT_IMAGE, STAND_IN_PORT, startStandInModel } from "../../test/support/stand-in-container.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-run-files-e2e-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the real claude CLI with runFiles "engine"', () => {
  it("writes out/answer.txt with Write and runs Bash: the file comes back through the engine and is harvested", async () => {
    const standIn = await startStandInModel("tool_write_bash");
    try {
      const inputs = mkdtempSync(join(scratch, "inputs-"));
      writeFileSync(join(inputs, "README.md"), "read me\n");
      const harvestTo = join(scratch, "harvest");
      const runner = createAgentRunner({
        image: AGENT_IMAGE,
        environment: { ANTHROPIC_API_KEY: "sk-ant-run-files-e2e-0123456789" },
        staging: { runtimeDir: join(scratch, "runs") },
        networks: [standIn.network],
        anthropicBaseUrl: `http://127.0.0.1:${STAND_IN_PORT}`,
        apiRetries: 0,
        logger: capturingLogger().logger,
        runFiles: "engine",
      });
      const outcome = await runner.run({ cli: "claude", maxTurns: 10 }, "Write the answer.", { inputs: { directory: inputs }, harvestTo });
      expect(outcome.error).toBeUndefined();
      expect(outcome).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 1 } });
      expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("written by the stand-in model\n");
      expect(containersOfRun(outcome.runId)).toEqual([]);
      for (const kind of ["inputs", "out"] as const)
        expect(docker("volume", "ls", "--quiet", "--filter", `name=${runVolumeName(kind, outcome.runId)}`)).toBe("");
    } finally {
      await standIn.stop();
    }
  }, 120_000);
});
