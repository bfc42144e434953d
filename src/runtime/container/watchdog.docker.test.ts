// The stall watchdog against the real engine and the offline test image's fake claude: a CLI that
// hangs after its first line is stopped as stalled soon after stallSeconds, warned of first, and
// leaves no container; one that computes in silence for longer than stallSeconds is left to finish.

import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun } from "../../../test/support/engine.js";

const STALL_SECONDS = 3;

function fakeClaude(model: "stalls" | "computes") {
  return createAgentContainerRuntime({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, limits: { stopGraceSeconds: 2 } },
    run: () => ({ args: ["claude", "-p", "--output-format", "stream-json", "--model", model], stdin: "", outcome: collectStdout }),
  });
}

describe("the stall watchdog on the real engine", () => {
  it("stops a CLI that printed its first line and then hung, as stalled, after a warning", async () => {
    const warnings: number[] = [];
    const outcome = await fakeClaude("stalls").run(
      { text: "" },
      { stallSeconds: STALL_SECONDS, timeoutSeconds: 60, onStallWarning: ({ silentMs }) => warnings.push(silentMs) },
    );
    expect(outcome).toMatchObject({ ok: false, reason: "stalled", exit: { signal: "SIGTERM" } });
    expect(outcome.error).toMatch(/^the agent printed nothing and used no CPU for 3 s \(stallSeconds 3\); it was stopped/);
    expect(outcome.result?.bytes.toString("utf8")).toContain('"subtype":"init"');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBeGreaterThanOrEqual(1500);
    // The reading every 600 ms, the engine's answer at its next 1 s tick, then the stop.
    expect(outcome.durationMs).toBeGreaterThanOrEqual(STALL_SECONDS * 1000);
    // About STALL_SECONDS + 1.6 s on an idle machine; three times that on a busy one.
    expect(outcome.durationMs).toBeLessThan(3 * (STALL_SECONDS * 1000 + 1600));
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("lets a CLI that computes in silence for 8 s finish, with stallSeconds 3", async () => {
    const warnings: number[] = [];
    const outcome = await fakeClaude("computes").run(
      { text: "" },
      { stallSeconds: STALL_SECONDS, timeoutSeconds: 60, onStallWarning: ({ silentMs }) => warnings.push(silentMs) },
    );
    expect(outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 0 } });
    expect(outcome.result?.bytes.toString("utf8")).toContain('"result":"computed"');
    // Until 8 s past the whole second it began: 7 to 8 s of silence, more than twice the stall time.
    expect(outcome.durationMs).toBeGreaterThanOrEqual(7000);
    expect(warnings).toEqual([]);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});
