// What a Run's verdict and times say, against the real engine: a command that never ran is
// unavailable whatever the reader made of it; a timeout signal is a timeout; five Runs started at
// once share the machine and say how long each waited.

import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime, limits } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun } from "../../test/support/engine.js";

const quiet = capturingLogger().logger;

describe("the verdict of a Run whose command never ran", () => {
  it("is unavailable even when the reader says ok (exit 127)", async () => {
    const outcome = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet },
      run: () => ({ args: ["no-such-agent"], stdin: "", outcome: collectStdout }),
    }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", exit: { code: 127 } });
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});

describe("a Run given AbortSignal.timeout()", () => {
  it("ends as timeout when the signal fires, with the container gone", async () => {
    const outcome = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet, limits: { stopGraceSeconds: 1 } },
      run: () => ({ args: ["sleep", "30"], stdin: "", outcome: collectStdout }),
    }).run({ text: "" }, { signal: AbortSignal.timeout(1000) });
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(outcome.error).toMatch(/^the caller's signal timed out/);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});

describe("five Runs started at once with the default concurrency", () => {
  it(`run ${limits.DEFAULT_MAX_CONCURRENT_RUNS} at a time, each durationMs its own and the wait in queuedMs`, async () => {
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet },
      run: () => ({ args: ["sleep", "1"], stdin: "", outcome: collectStdout }),
    });
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => runtime.run({ text: "" })));
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ ok: true, reason: "completed" });
      expect(outcome.durationMs).toBeLessThan(10_000);
    }
    const waited = outcomes.map((o) => o.queuedMs ?? 0).sort((a, b) => a - b);
    expect(waited.slice(0, limits.DEFAULT_MAX_CONCURRENT_RUNS).every((ms) => ms < 1000)).toBe(true);
    expect(waited.at(-1)).toBeGreaterThanOrEqual(900);
  }, 60_000);
});
