// An engine that goes away mid-Run, on a second daemon of this test's own (its own data root and
// socket, no network): the engine stops the container with a signal the Run did not send and then
// stops answering. The Run ends as unavailable, saying so, and nothing it left is harvested.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout } from "../../../test/support/engine.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-d2-"));
const socket = join(root, "docker.sock");
let daemon: ChildProcess | undefined;

function startDaemon(): ChildProcess {
  // In a network namespace of its own: a second daemon started with --bridge=none deletes the
  // host's docker0 bridge, which the host's own daemon needs for every container on the default bridge.
  const child = spawn(
    "unshare",
    [
      "--net",
      "dockerd",
      "--data-root",
      join(root, "data"),
      "--exec-root",
      join(root, "exec"),
      "--pidfile",
      join(root, "pid"),
      "-H",
      `unix://${socket}`,
      "--bridge=none",
      "--iptables=false",
      "--ip-masq=false",
      "--shutdown-timeout",
      "2",
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  return child;
}

async function answers(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync("docker", ["-H", `unix://${socket}`, "info"], { stdio: "ignore" });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error("the test's second engine did not answer within 20 s");
}

async function stopDaemon(): Promise<void> {
  if (daemon === undefined || daemon.exitCode !== null) return;
  const exited = new Promise((resolve) => daemon?.once("exit", resolve));
  daemon.kill("SIGTERM");
  await exited;
}

beforeAll(async () => {
  daemon = startDaemon();
  await answers();
  // The second engine has no images: give it the test image.
  execFileSync("sh", ["-c", `docker save ${TEST_IMAGE} | docker -H unix://${socket} load`], { stdio: "ignore" });
}, 60_000);

afterAll(async () => {
  await stopDaemon();
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
}, 60_000);

describe("a Run whose engine goes away", () => {
  it("ends as unavailable, saying so, and nothing is harvested", async () => {
    const runtimeDir = join(root, "runs");
    const harvestTo = join(root, "harvest");
    mkdirSync(runtimeDir);
    // The default engine reads DOCKER_HOST when it is made: point it at the second engine for this runtime only.
    const saved = process.env["DOCKER_HOST"];
    process.env["DOCKER_HOST"] = `unix://${socket}`;
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir } },
      run: () => ({ args: ["sh", "-c", "echo half > out/half.txt; echo started; sleep 30; echo done > out/done.txt"], stdin: "", outcome: collectStdout }),
    });
    if (saved === undefined) delete process.env["DOCKER_HOST"];
    else process.env["DOCKER_HOST"] = saved;
    const running = runtime.run({ text: "" }, { timeoutSeconds: 60, harvestTo });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await stopDaemon();
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toContain("the engine went away while the Run ran");
    expect(outcome.harvest).toBeUndefined();
    expect(existsSync(harvestTo)).toBe(false);

    // Back up, the engine still holds the stopped container: the next sweep of this session removes it.
    daemon = startDaemon();
    await answers();
    const swept = await runtime.sweep();
    expect(swept.removed).toHaveLength(1);
    expect(execFileSync("docker", ["-H", `unix://${socket}`, "ps", "--all", "--quiet"], { encoding: "utf8" }).trim()).toBe("");
  }, 90_000);
});
