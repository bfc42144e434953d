// The command never picks a network that reaches out: it is named (`--network bridge`,
// `--network-policy open`), and then stderr says what the agent can reach. `plan` is asked here,
// in this process: it starts nothing, so the warning is all there is to see.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Asked, askProgram } from "../../test/support/program.js";

const KEY = "sk-ant-made-up-warning-test-0123456789";
const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-warning-"));
afterAll(() => rmSync(runtimeDir, { recursive: true, force: true }));

/** `plan`, its credential in this process's environment too (the runner reads it there); what it throws, thrown. */
async function plan(...words: string[]): Promise<Asked> {
  const asked = await askProgram(
    ["plan", "claude", "Say hi", "--runtime-dir", runtimeDir, ...words],
    { ANTHROPIC_API_KEY: KEY, AGENTCAGE_RUNTIME_DIR: runtimeDir },
    { ANTHROPIC_API_KEY: KEY },
  );
  if (asked.thrown !== undefined) throw asked.thrown;
  return asked;
}

describe("a network named by hand", () => {
  it("that reaches out (bridge) is joined, with a warning of what the agent reaches through NAT", async () => {
    const done = await plan("--network", "bridge");
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("--network bridge");
    expect(done.stderr).toMatch(
      /^agentcage: warning: network "bridge" is joined by hand.*the host's services and a cloud's metadata endpoint \(169\.254\.169\.254\) through NAT/m,
    );
    expect(done.stdout + done.stderr).not.toContain(KEY);
  });

  it("that reaches only a container's namespace (a stand-in model's) gets no warning", async () => {
    const done = await plan("--network", "container:agentcage-stand-in");
    expect(done.code).toBe(0);
    expect(done.stderr).not.toContain("warning");
  });

  it("is never picked: with a key and no network named, the agent has none", async () => {
    const done = await plan();
    expect(done.code).toBe(0);
    expect(done.stdout).toContain("--network none");
    expect(done.stderr).not.toContain("warning");
  });
});
