// Runs over three engines: this host's and two daemons of the test's own, each in a network
// namespace of its own. One of the two is killed mid-Run: its Runs end unavailable, saying the
// engine stopped answering; the others complete; every Run is answered once; and once it is back,
// nothing of the Runs is left on any engine. A Run whose files go through the engine (runFiles
// "engine") is staged, run and harvested all on the engine it was placed on.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerEngine, engineAt, parseEngineAddress } from "../../engine/index.js";
import { createAgentContainerRuntime } from "../../index.js";
import { createEngineSet, type EngineSet } from "../../subpaths/runtime.js";
import { TEST_IMAGE, capturingLogger, collectStdout, docker } from "../../../test/support/engine.js";
import { extraEngine, loadTestImage, type ExtraEngine } from "../../../test/support/extra-engine.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-engines-"));
const owner = `engines-test-${process.pid}`;
const extras: ExtraEngine[] = [];
let set: EngineSet | undefined;

beforeAll(async () => {
  for (const name of ["acb", "acc"]) extras.push(extraEngine(root, name));
  await Promise.all(extras.map((engine) => engine.start()));
  for (const engine of extras) loadTestImage(engine);
}, 120_000);

afterAll(async () => {
  set?.close();
  // Every path, a failed test's too: the daemons, their namespaces, their directories.
  const removed = await Promise.allSettled(extras.map((engine) => engine.remove()));
  for (const one of removed) if (one.status === "rejected") throw one.reason;
  rmSync(root, { recursive: true, force: true });
}, 120_000);

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What carries this test's owner label on an engine: containers, networks, volumes. */
function leftOn(run: (...args: string[]) => string): string[] {
  const filter = ["--filter", `label=agentcage.owner=${owner}`];
  return [
    ...run("ps", "--all", "--quiet", ...filter).split("\n"),
    ...run("network", "ls", "--quiet", ...filter).split("\n"),
    ...run("volume", "ls", "--quiet", ...filter).split("\n"),
  ].filter((line) => line !== "");
}

describe("a runtime over three engines", () => {
  it("places Runs on all three, ends the killed engine's Runs as unavailable, and leaves nothing", async () => {
    const [b, c] = extras as [ExtraEngine, ExtraEngine];
    set = createEngineSet([
      { name: "host", engine: createDockerEngine(), maxConcurrentRuns: 2 },
      { name: b.name, engine: engineAt(parseEngineAddress(b.address, "--engine")), maxConcurrentRuns: 2 },
      { name: c.name, engine: engineAt(parseEngineAddress(c.address, "--engine")), maxConcurrentRuns: 2 },
    ]);
    const log = capturingLogger();
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, owner, logger: log.logger, staging: { runtimeDir: join(root, "runs") } },
      run: () => ({ args: ["sh", "-c", "echo started; sleep 6; echo done"], stdin: "", outcome: collectStdout }),
      engines: set,
    });
    const runs = Array.from({ length: 6 }, () => runtime.run({ text: "" }, { timeoutSeconds: 60 }));
    // Two on each: the most free slots wins, so the six spread over the three.
    await until("two Runs running on each engine", () => (set?.status() ?? []).every((s) => s.running === 2), 30_000);
    await until("the Runs' containers running on the engine to be killed", () => b.docker("ps", "--quiet").split("\n").filter(Boolean).length === 2, 30_000);
    const killedAt = Date.now();
    await b.kill();
    const outcomes = await Promise.all(runs);
    // Each answered once, with its own id, and placed once.
    const ids = outcomes.map((o) => o.runId);
    expect(new Set(ids).size).toBe(6);
    const placements = log.lines
      .map((line) => JSON.parse(line) as { msg: string; runId?: string; engine?: string })
      .filter((l) => l.msg === "the Run is placed on an engine");
    expect(placements.map((p) => p.runId).sort()).toEqual([...ids].sort());
    const engineOf = new Map(placements.map((p) => [p.runId, p.engine]));
    for (const outcome of outcomes) {
      if (engineOf.get(outcome.runId) === b.name) {
        expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
        expect(outcome.error).toContain(`the engine "${b.name}" stopped answering`);
      } else {
        expect(outcome).toMatchObject({ ok: true, reason: "completed" });
      }
    }
    expect([...engineOf.values()].filter((name) => name === b.name)).toHaveLength(2);
    // Drained within a few pings, not at the Runs' own end (6 s of sleep): 3x of what it takes idle.
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    expect(set.status().find((s) => s.name === b.name)).toMatchObject({ drained: true, running: 0 });
    // A new Run is not placed on the drained engine.
    const after = await runtime.run({ text: "" }, { timeoutSeconds: 60 });
    expect(after.reason).toBe("completed");
    expect(log.lines.filter((line) => line.includes(after.runId) && line.includes(`"engine":"${b.name}"`))).toEqual([]);

    // Back up, the engine answers again: it is swept of what its ended Runs left.
    await b.start();
    await until("the engine back to be swept", () => leftOn(b.docker).length === 0, 30_000);
    expect(set.status().find((s) => s.name === b.name)).toMatchObject({ drained: false, answers: true });
    for (const run of [b.docker, c.docker, docker]) expect(leftOn(run)).toEqual([]);
  }, 120_000);
});

describe('runFiles "engine" over an engine set', () => {
  it("stages, runs and harvests a Run on the engine it was placed on, with nothing of it on the others", async () => {
    const c = extras[1] as ExtraEngine;
    // The one engine of this set is the test's own daemon: what the Run needs must be made there, not on this host's engine.
    const only = createEngineSet([{ name: c.name, engine: engineAt(parseEngineAddress(c.address, "--engine")), maxConcurrentRuns: 1 }]);
    try {
      const runtime = createAgentContainerRuntime({
        container: { image: TEST_IMAGE, owner, logger: capturingLogger().logger, staging: { runtimeDir: join(root, "files-runs") } },
        run: () => ({ args: ["sh", "-c", "cat a.txt; echo 42 > out/answer.txt"], stdin: "", outcome: collectStdout }),
        engines: only,
        runFiles: "engine",
      });
      const directory = mkdtempSync(join(root, "inputs-"));
      writeFileSync(join(directory, "a.txt"), "one\n");
      const harvestTo = join(root, "files-harvest");
      const outcome = await runtime.run({ text: "" }, { inputs: { directory }, harvestTo, timeoutSeconds: 60 });
      expect(outcome, outcome.error).toMatchObject({ ok: true, reason: "completed" });
      expect(Buffer.from((outcome.result as { bytes: Buffer }).bytes).toString()).toBe("one\n");
      expect(readFileSync(join(harvestTo, "answer.txt"), "utf8")).toBe("42\n");
      for (const run of [c.docker, docker]) expect(leftOn(run)).toEqual([]);
    } finally {
      only.close();
    }
  }, 120_000);
});
