// The command never picks a network that reaches out: it is named (`--network bridge`,
// `--network-policy open`), and then stderr says what the agent can reach. `plan` is asked here,
// in this process: it starts nothing, so the warning is all there is to see.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ProgramIo } from "./io.js";
import { buildProgram } from "./program.js";
import type { ViewStream } from "./view.js";
import { textStream } from "../../test/support/text-stream.js";

const KEY = "sk-ant-made-up-warning-test-0123456789";
const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-warning-"));
afterAll(() => rmSync(runtimeDir, { recursive: true, force: true }));

const stream = () => textStream<ViewStream>();

async function plan(...words: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = stream();
  const stderr = stream();
  const env = { ANTHROPIC_API_KEY: KEY, AGENTCAGE_RUNTIME_DIR: runtimeDir, NO_COLOR: "1" };
  const saved = process.env["ANTHROPIC_API_KEY"];
  process.env["ANTHROPIC_API_KEY"] = KEY; // the runner reads credentials from this process's environment
  const io: ProgramIo = {
    stdout,
    stderr,
    env,
    live: false,
    onInterrupt: () => () => undefined,
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
    readStdin: async () => "",
  };
  let code = -1;
  try {
    await buildProgram(io, (c) => (code = c)).parseAsync(["node", "agentcage", "plan", "claude", "Say hi", "--runtime-dir", runtimeDir, ...words]);
  } finally {
    if (saved === undefined) delete process.env["ANTHROPIC_API_KEY"];
    else process.env["ANTHROPIC_API_KEY"] = saved;
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
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
