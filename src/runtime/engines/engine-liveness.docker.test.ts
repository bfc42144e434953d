// Slow and dead, told apart, on an engine of the test's own (a dockerd in a network namespace of its
// own): frozen with SIGSTOP for longer than its pings' bound while a Run goes on it, the engine is
// slow, not gone, and the Run completes once it goes on; killed, its socket refuses, and its Run ends
// `unavailable` at once, naming it. Nothing of either Run is left on the engine.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineAt, parseEngineAddress } from "../../engine/index.js";
import { readLoadWith } from "../../liveness/index.js";
import { createAgentContainerRuntime } from "../../index.js";
import { createEngineSet, type EngineSet } from "../../subpaths/runtime.js";
import { TEST_IMAGE, capturingLogger, collectStdout, type Collected } from "../../../test/support/engine.js";
import { extraEngine, loadTestImage, type ExtraEngine } from "../../../test/support/extra-engine.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-liveness-"));
const owner = `liveness-test-${process.pid}`;
let engine: ExtraEngine;
const sets: EngineSet[] = [];

/**
 * How long the engine is frozen: longer than what drained a silent engine before (two pings of 3 s,
 * a second apart: about 8 s), and than several of a ping's bounds on an idle machine.
 */
const FROZEN_MS = 15_000;

beforeAll(async () => {
  engine = extraEngine(root, "acl");
  await engine.start();
  loadTestImage(engine);
}, 120_000);

afterAll(async () => {
  for (const set of sets) set.close();
  await engine.remove();
  rmSync(root, { recursive: true, force: true });
}, 120_000);

function runtimeOn(set: EngineSet, script: string, runs: string) {
  return createAgentContainerRuntime({
    container: { image: TEST_IMAGE, owner, logger: capturingLogger().logger, staging: { runtimeDir: join(root, runs) } },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome: collectStdout }),
    engines: set,
  });
}

function setOn(one: ExtraEngine): EngineSet {
  const set = createEngineSet([{ name: one.name, engine: engineAt(parseEngineAddress(one.address, "--engine")), maxConcurrentRuns: 2 }]);
  sets.push(set);
  return set;
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function running(one: ExtraEngine): number {
  return one
    .docker("ps", "--quiet", "--filter", `label=agentcage.owner=${owner}`)
    .split("\n")
    .filter((line) => line !== "").length;
}

function leftOn(one: ExtraEngine): string[] {
  const filter = ["--filter", `label=agentcage.owner=${owner}`];
  return [...one.docker("ps", "--all", "--quiet", ...filter).split("\n"), ...one.docker("volume", "ls", "--quiet", ...filter).split("\n")].filter(
    (line) => line !== "",
  );
}

describe("an engine that is slow, and one that is gone", () => {
  it("lets a Run finish on an engine frozen longer than its pings' bound, once the engine goes on", async () => {
    // The bounds as on an idle machine, the shortest they get: the freeze outlasts them whatever the load.
    const restoreLoad = readLoadWith(() => ({ runnable: 0, average: 0, cores: 1 }));
    const set = setOn(engine);
    const runtime = runtimeOn(set, "echo started; sleep 2; echo done", "slow-runs");
    const outcome = runtime.run({ text: "" }, { timeoutSeconds: 120 });
    await until("the Run's container running on the engine", () => set.status()[0]?.running === 1 && running(engine) === 1, 60_000);
    engine.pause();
    try {
      await new Promise((resolve) => setTimeout(resolve, FROZEN_MS));
      // Late, not gone: its pings went unanswered, and it is neither drained nor its Run ended.
      expect(set.status()[0]).toMatchObject({ name: engine.name, drained: false, running: 1 });
      expect(set.status()[0]?.latePings).toBeGreaterThan(0);
    } finally {
      engine.resume();
      restoreLoad();
    }
    const ended = await outcome;
    expect(ended, ended.error).toMatchObject({ ok: true, reason: "completed" });
    expect(Buffer.from((ended.result as Collected).bytes).toString()).toBe("started\ndone\n");
    await until("the engine answering its pings again", () => set.status()[0]?.answers === true, 30_000);
    expect(leftOn(engine)).toEqual([]);
  }, 120_000);

  it("ends a Run on an engine that was killed as unavailable, promptly, naming the engine", async () => {
    const set = setOn(engine);
    const runtime = runtimeOn(set, "echo started; sleep 60; echo done", "gone-runs");
    const outcome = runtime.run({ text: "" }, { timeoutSeconds: 120 });
    await until("the Run's container running on the engine", () => set.status()[0]?.running === 1 && running(engine) === 1, 60_000);
    const killedAt = performance.now();
    await engine.kill();
    const ended = await outcome;
    const tookMs = performance.now() - killedAt;
    expect(ended).toMatchObject({ ok: false, reason: "unavailable" });
    expect(ended.error).toContain(`the engine "${engine.name}"`);
    // Measured idle: 20-30 ms when the Run's own call finds the socket gone, 1.4 s when the pings find it
    // first (two refused, a second apart): at most 2 s; 3x that.
    expect(tookMs).toBeLessThan(6_000);
    // The Run's own call may find it gone before the pings do: they drain it within their two refusals, a second apart (3x).
    await until("the engine drained by its pings", () => set.status()[0]?.drained === true, 10_000);
    expect(set.status()[0]).toMatchObject({ drained: true, running: 0 });

    // Back, the engine is swept of what the ended Run left.
    await engine.start();
    await until("the engine back to be swept", () => leftOn(engine).length === 0, 30_000);
  }, 240_000);
});
