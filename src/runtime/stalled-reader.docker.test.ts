// Stopping does not depend on the reader, against the real engine: a reader that stops reading
// (awaiting something else) while the agent floods its output cannot make a Run unstoppable; the
// timeout and a cancel end it within the grace period, name what ended it, and leave no container.

import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime, type ReaderVerdict } from "../index.js";
import { TEST_IMAGE, capturingLogger, containersOfRun } from "../../test/support/engine.js";

const FLOOD = "while true; do echo 'a line of agent output that fills every pipe buffer on its way out'; done";

/** Reads one chunk, then waits on something that never comes: a caller's bug, or a slow sink. */
async function stallsAfterFirstChunk(stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict> {
  for await (const _chunk of stdout) await new Promise(() => undefined);
  return { ok: true };
}

function floodRuntime() {
  return createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, limits: { stopGraceSeconds: 2 } },
    run: () => ({ args: ["sh", "-c", FLOOD], stdin: "", outcome: stallsAfterFirstChunk }),
  });
}

describe("a Run whose reader has stopped reading", () => {
  it("ends at its timeout within the grace period, as timeout, with its container gone", async () => {
    const started = performance.now();
    const outcome = await floodRuntime().run({ text: "" }, { timeoutSeconds: 3 });
    const tookMs = performance.now() - started;
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(outcome.error).toMatch(/^the Run timed out after 3 s/);
    expect(tookMs).toBeLessThan(3000 + 2000 + 4000);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  }, 60_000);

  it("ends at a cancel within the grace period, as cancelled, with its container gone", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1500);
    const started = performance.now();
    const outcome = await floodRuntime().run({ text: "" }, { signal: controller.signal, timeoutSeconds: 120 });
    expect(outcome).toMatchObject({ ok: false, reason: "cancelled" });
    expect(performance.now() - started).toBeLessThan(1500 + 2000 + 4000);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  }, 60_000);
});
