// The MCP example as `npm run example:mcp` runs it (after its build): the SDK's client starts
// `agentcage mcp --stand-in`, hands a task with input files to a caged claude, prints its progress,
// its answer, and the file it wrote.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO } from "../test/support/command.js";
import { TOOL_FINAL_ANSWER, WRITTEN_FILE_TEXT } from "../test/stand-in/index.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-mcp-example-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("npm run example:mcp", () => {
  it("prints the tools, the Run's progress to its end, the agent's answer and the file it wrote", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(REPO, "dist-tools", "examples", "mcp-client.js"), "--runtime-dir", join(root, "rt")], {
      timeout: 120_000,
    });
    expect(stdout).toContain("tools: run_agent, run_status, run_events, run_cancel, run_artifacts, read_artifact");
    expect(stdout).toContain("progress 1: state: queued");
    expect(stdout).toMatch(/progress \d+: end: completed \(ok\)/);
    expect(stdout).toContain(`answer: ${TOOL_FINAL_ANSWER}`);
    expect(stdout).toContain(`answer.txt: ${JSON.stringify(WRITTEN_FILE_TEXT)}`);
  });
});
