import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime } from "../src/index.js";
import { TEST_IMAGE, capturingLogger } from "../test/support/engine.js";
import { sampleAgentPlan } from "./sample-agent.js";

describe("the demo's sample agent", () => {
  it("answers through run() with every default on", async () => {
    const runtime = createAgentContainerRuntime({ container: { image: TEST_IMAGE, logger: capturingLogger().logger }, run: sampleAgentPlan });
    const outcome = await runtime.run({ text: "héllo" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { ok: true, text: "6 bytes received" } });
  });

  it("is not ok when the agent ends without its result line", async () => {
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger },
      run: (prompt, run) => ({ ...sampleAgentPlan(prompt, run), args: ["sh", "-c", 'echo \'{"type":"start"}\''] }),
    });
    const outcome = await runtime.run({ text: "x" });
    expect(outcome).toMatchObject({ ok: false, reason: "failed", error: "sample-agent ended without a result line; the agent exited with code 0" });
  });
});
