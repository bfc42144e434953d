// A stronger sandbox where the host has one: the Agent Container may name the engine's container
// runtime. Against the real engine: the default runtime runs and the Outcome names none; a runtime
// the engine does not have ends the Run as unavailable, naming it, and leaves no container.

import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun } from "../../test/support/engine.js";

const quiet = capturingLogger().logger;
const registered = Object.keys(JSON.parse(execFileSync("docker", ["info", "--format", "{{json .Runtimes}}"]).toString()) as Record<string, unknown>);

describe("a declared container runtime", () => {
  it("runs under a runtime the engine has, and the Outcome names it", async () => {
    const runtime = registered.includes("runc") ? "runc" : (registered[0] as string);
    const outcome = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet, containerRuntime: runtime },
      run: () => ({ args: ["echo", "under", runtime], stdin: "", outcome: collectStdout }),
    }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", containerRuntime: runtime });
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("ends a Run under a runtime the engine does not have as unavailable, naming it", async () => {
    const outcome = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet, containerRuntime: "agentcage-no-such-runtime" },
      run: () => ({ args: ["true"], stdin: "", outcome: collectStdout }),
    }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", containerRuntime: "agentcage-no-such-runtime" });
    expect(outcome.error).toContain("agentcage-no-such-runtime");
    expect(outcome.error).toContain("the engine has no such container runtime");
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});

describe("gVisor (runsc) with no network", () => {
  it("runs a locked-down Run in gVisor's own kernel, which the agent sees", async () => {
    expect(registered, "gVisor's runsc is not registered with the engine: run scripts/provision.sh as root (it installs runsc and registers it)").toContain(
      "runsc",
    );
    const outcome = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet, containerRuntime: "runsc" },
      run: () => ({ args: ["sh", "-c", "cat; dmesg | head -n 1; id -u"], stdin: "through stdin\n", outcome: collectStdout }),
    }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", containerRuntime: "runsc" });
    const printed = (outcome.result as { bytes: Buffer } | undefined)?.bytes.toString() ?? "";
    expect(printed).toContain("through stdin");
    expect(printed).toContain("Starting gVisor");
    expect(printed.trim().split("\n").at(-1)).not.toBe("0");
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});
