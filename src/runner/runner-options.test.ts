// createAgentRunner and its run() called wrongly from plain JavaScript: the runner's own words
// (never the Agent Container's), the value quoted; run() never rejects. A caller's onEvent that
// throws is the caller's failure, reported in the Outcome, and the Run goes on.

import { readFileSync } from "node:fs";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AgentRunnerError, createAgentRunner } from "../index.js";
import { createFakeEngine } from "../../test/support/fake-engine.js";

const silent = pino({ level: "silent" });
const loose = (f: unknown) => f as (...args: unknown[]) => unknown;
const KEY = "sk-ant-runner-options-0123456789";
const claudePlain = readFileSync(new URL("../../test/fixtures/claude/plain.jsonl", import.meta.url));

describe("createAgentRunner called wrongly", () => {
  it.each([
    ["no options", [], /createAgentRunner's options undefined is not an object/],
    ["an option it does not know", [{ image: "a:1", network: ["x"] }], /createAgentRunner option "network" is not one it knows/],
    ["a second argument", [{ image: "a:1" }, {}], /createAgentRunner takes one argument, its options; 1 more were given/],
    [
      "a bad image, in the runner's words",
      [{ image: " a:1" }],
      /^createAgentRunner options are invalid: image: image " a:1" is empty or has surrounding space/,
    ],
    ["a runFiles it does not know", [{ image: "a:1", runFiles: "nfs" }], /^runFiles "nfs" is not one of disk, engine; pass "engine"/],
    [
      'a codex login with runFiles "engine"',
      [{ image: "a:1", staging: { runtimeDir: "/x" }, codexLoginDirectory: "/logins", runFiles: "engine" }],
      /codexLoginDirectory "\/logins" is handed to each Run as a file bound from this host's disk, and runFiles "engine" binds nothing of it/,
    ],
  ])("throws AgentRunnerError for %s", (_what, args, message) => {
    expect(() => loose(createAgentRunner)(...args)).toThrow(AgentRunnerError);
    expect(() => loose(createAgentRunner)(...args)).toThrow(message);
  });
});

describe("run called wrongly", () => {
  it.each([
    ["a prompt that is not a string", [{ cli: "claude" }, { text: "hi" }], /the prompt \{"text":"hi"\} is not a string/],
    ["an option it does not know", [{ cli: "claude" }, "hi", { timeoutSeconds: 5 }], /run option "timeoutSeconds" is not one it knows/],
    ["an onEvent that is not a function", [{ cli: "claude" }, "hi", { onEvent: "log" }], /run option onEvent "log" is not a function/],
    ["a fourth argument", [{ cli: "claude" }, "hi", {}, {}], /run takes \(request, prompt, options\); 1 more argument/],
    ["a runId that is not a Run id", [{ cli: "claude" }, "hi", { runId: "run-1" }], /run option runId "run-1" is not a Run id; make one with newRunId\(\)/],
  ])("resolves as invalid_request for %s", async (_what, args, message) => {
    const engine = createFakeEngine();
    const runner = createAgentRunner({ image: "agent:1", environment: { ANTHROPIC_API_KEY: KEY }, logger: silent, engine });
    const outcome = (await loose(runner.run)(...args)) as { reason: string; error: string };
    expect(outcome.reason).toBe("invalid_request");
    expect(outcome.error).toMatch(message);
    expect(engine.calls.filter((call) => call.startsWith("create"))).toEqual([]);
  });
});

describe("an onEvent that throws", () => {
  it("is reported as the caller's callback failing, and the Run completes", async () => {
    const runner = createAgentRunner({
      image: "agent:1",
      environment: { ANTHROPIC_API_KEY: KEY },
      networks: ["agents"],
      logger: silent,
      engine: createFakeEngine({ stdout: [claudePlain] }),
    });
    let calls = 0;
    const outcome = await runner.run({ cli: "claude" }, "What is the capital of France?", {
      onEvent: () => {
        calls += 1;
        throw new Error(`my dashboard is down (key ${KEY})`);
      },
    });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { text: "The capital of France is Paris." } });
    expect(calls).toBe(1);
    expect(outcome.onEventError).toBe("the caller's onEvent threw: my dashboard is down (key [REDACTED]); the Run went on without it");
  });
});

describe("a runId the caller made", () => {
  const runId = "0123456789abcdef";

  it("names the Run's container and its Outcome", async () => {
    const engine = createFakeEngine({ stdout: [claudePlain] });
    const runner = createAgentRunner({ image: "agent:1", environment: { ANTHROPIC_API_KEY: KEY }, networks: ["agents"], logger: silent, engine });
    const outcome = await runner.run({ cli: "claude" }, "What is the capital of France?", { runId });
    expect(outcome).toMatchObject({ ok: true, runId });
    expect(engine.calls).toContain(`create agentcage-${runId}`);
  });

  it("is the runId of a refusal before any container too", async () => {
    const engine = createFakeEngine();
    const runner = createAgentRunner({ image: "agent:1", environment: {}, logger: silent, engine });
    const outcome = await runner.run({ cli: "claude" }, "hi", { runId });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", runId });
    expect(engine.calls.filter((call) => call.startsWith("create"))).toEqual([]);
  });

  it("is the runId of a misused call, and of a request the runtime refuses", async () => {
    const engine = createFakeEngine();
    const runner = createAgentRunner({ image: "agent:1", environment: { ANTHROPIC_API_KEY: KEY }, networks: ["agents"], logger: silent, engine });
    const misused = await runner.run({ cli: "claude" }, 42 as never, { runId });
    expect(misused).toMatchObject({ ok: false, reason: "invalid_request", runId });
    const refused = await runner.run({ cli: "claude" }, "hi", { runId, harvestTo: "relative/out" });
    expect(refused).toMatchObject({ ok: false, reason: "invalid_request", runId });
    expect(engine.calls.filter((call) => call.startsWith("create"))).toEqual([]);
  });
});
