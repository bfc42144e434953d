// Runs that end before any container exists: a malformed call, a plan that throws, a prompt over
// its cap, an engine that cannot be reached. run() resolves with an Outcome for each; never rejects.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createUnreachableEngine } from "../../test/support/fake-engine.js";
import { createAgentContainerRuntime, limits, type RunPlanFunction, type RunPrompt } from "../index.js";

const silent = pino({ level: "silent" });
const drain: RunPlanFunction = (prompt) => ({ args: ["cat"], stdin: prompt.text, outcome: async () => ({ ok: true }) });
// Nothing answers: a Run that reached the engine would end as unavailable, not as asserted.
const nowhere = createUnreachableEngine();

function runtimeWith(run: RunPlanFunction = drain) {
  return createAgentContainerRuntime({ container: { image: "agent:1", logger: silent }, run, engine: nowhere });
}

describe("a Run that ends before a container exists", () => {
  it("is invalid_request when the prompt has no text", async () => {
    const outcome = await runtimeWith().run({ text: 42 } as unknown as RunPrompt);
    expect(outcome).toMatchObject({ ok: false, reason: "invalid_request", error: "the prompt is not { text: string }; pass the prompt's text as a string" });
  });

  it.each([[0], [86_401], [2.5]])("is invalid_request for a per-call timeoutSeconds of %s, quoting it", async (timeoutSeconds) => {
    const outcome = await runtimeWith().run({ text: "hi" }, { timeoutSeconds });
    expect(outcome.reason).toBe("invalid_request");
    expect(outcome.error).toContain(`timeoutSeconds ${timeoutSeconds} is out of range`);
  });

  it("is plan_error when the Run Plan function throws or returns no reader", async () => {
    const threw = await runtimeWith(() => {
      throw new Error("no model configured");
    }).run({ text: "hi" });
    expect(threw).toMatchObject({ reason: "plan_error", error: "the Run Plan function threw: no model configured" });

    const noReader = await runtimeWith((p) => ({ args: ["cat"], stdin: p.text }) as unknown as ReturnType<RunPlanFunction>).run({ text: "hi" });
    expect(noReader.reason).toBe("plan_error");
    expect(noReader.error).toContain("outcome is not a function");
  });

  it("is input_limit when the plan's stdin is over MAX_STDIN_BYTES", async () => {
    const outcome = await runtimeWith().run({ text: "x".repeat(limits.MAX_STDIN_BYTES + 1) });
    expect(outcome.reason).toBe("input_limit");
    expect(outcome.error).toContain(`is ${limits.MAX_STDIN_BYTES + 1} bytes, over its limit of ${limits.MAX_STDIN_BYTES} (MAX_STDIN_BYTES)`);
  });

  it("is unavailable, saying what to start, when the engine cannot be reached", async () => {
    const outcome = await runtimeWith().run({ text: "hi" });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toMatch(/^the container engine is unreachable \(ECONNREFUSED during create\); start dockerd or point DOCKER_HOST/);
    expect(outcome.exit).toBeUndefined();
  });

  it("masks a secret that a plan's error message carries", async () => {
    const runtime = createAgentContainerRuntime({
      container: { image: "agent:1", logger: silent, env: { TOKEN: "tok-1234567890" } },
      run: () => {
        throw new Error("bad token tok-1234567890");
      },
      engine: nowhere,
    });
    const outcome = await runtime.run({ text: "hi" });
    expect(outcome.error).toBe("the Run Plan function threw: bad token [REDACTED]");
  });
});
