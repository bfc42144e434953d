// A container's CPU time as the real engine reads it: one-shot, so a reading costs no second-long
// pre-sample; it grows while the agent computes, stands still while it sleeps, and is nothing for
// a container that is not running or does not exist.

import { afterEach, describe, expect, it } from "vitest";
import { createDockerEngine } from "./docker.js";
import { docker, TEST_IMAGE } from "../../test/support/engine.js";

const engine = createDockerEngine();
const MS = 1_000_000;
let ids: string[] = [];
afterEach(() => {
  for (const id of ids) docker("rm", "--force", id);
  ids = [];
});

function container(script: string): string {
  const id = docker("run", "--detach", "--init", "--cap-drop", "ALL", "--user", "10002:10002", TEST_IMAGE, "sh", "-c", script);
  ids.push(id);
  return id;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the Docker engine's cpuUsage", () => {
  it("reads a sleeping container's CPU time without a pre-sample, and the reading stands still", async () => {
    const id = container("sleep 60");
    await sleep(1500);
    let started = performance.now();
    const first = await engine.cpuUsage(id);
    // A one-shot reading: at once when the engine's stats collector is idle, never the 2 s of a two-reading answer.
    expect(performance.now() - started).toBeLessThan(1500);
    await sleep(2000);
    started = performance.now();
    const second = await engine.cpuUsage(id);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(first).toBeGreaterThan(0);
    expect((second ?? 0) - (first ?? 0)).toBeLessThan(5 * MS);
  });

  it("grows while the container computes", async () => {
    const id = container("while :; do :; done");
    const first = await engine.cpuUsage(id);
    await sleep(2000);
    const second = await engine.cpuUsage(id);
    // Well above any idle agent even when this machine is busy with other work (it shares its cores).
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThan(200 * MS);
  });

  it("is nothing for a container that exited, or that does not exist", async () => {
    const id = container("true");
    docker("wait", id);
    expect(await engine.cpuUsage(id)).toBeUndefined();
    expect(await engine.cpuUsage("agentcage-no-such-container")).toBeUndefined();
  });

  it("gives the question up when its signal aborts", async () => {
    const id = container("sleep 60");
    await expect(engine.cpuUsage(id, AbortSignal.abort())).rejects.toThrow();
  });
});
