// Every public function of the runtime called wrongly from plain JavaScript answers with the
// library's own error naming the parameter and quoting the value; run() never rejects, it ends as
// invalid_request. A caller's signal decides between timeout and cancelled, its reason quoted.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { AgentContainerError, createAgentContainerRuntime, limits, RunRequestError } from "../index.js";
import { createFakeEngine } from "../../test/support/fake-engine.js";

const silent = pino({ level: "silent" });
const plan = () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) });
// Plain JavaScript: no compiler between the caller and the library.
const loose = (f: unknown) => f as (...args: unknown[]) => unknown;

function runtime(engine = createFakeEngine({ hang: true })) {
  return createAgentContainerRuntime({ container: { image: "fake:1", logger: silent }, run: plan, engine });
}

describe("createAgentContainerRuntime called wrongly", () => {
  it.each([
    ["no options", [], /options undefined is not an object/],
    ["options that are a string", ["agent:1"], /options "agent:1" is not an object/],
    ["a container that is missing", [{ run: plan }], /container undefined is not an Agent Container/],
    ["an option it does not know", [{ container: { image: "a:1" }, run: plan, concurrency: 2 }], /option "concurrency" is not one it knows/],
    ["a second argument", [{ container: { image: "a:1" }, run: plan }, { engine: {} }], /takes one argument.*1 more were given/],
  ])("throws AgentContainerError for %s", (_what, args, message) => {
    expect(() => loose(createAgentContainerRuntime)(...args)).toThrow(AgentContainerError);
    expect(() => loose(createAgentContainerRuntime)(...args)).toThrow(message);
  });
});

describe("run called wrongly", () => {
  it.each([
    ["a prompt that is a string", ["hello"], /the prompt is not \{ text: string \}/],
    ["options that are a number", [{ text: "x" }, 5], /run's options 5 is not an object/],
    ["an option it does not know", [{ text: "x" }, { timeout: 5 }], /run option "timeout" is not one it knows; use signal, timeoutSeconds/],
    ["a signal that is not an AbortSignal", [{ text: "x" }, { signal: "stop" }], /run option signal "stop" is not an AbortSignal/],
    ["a third argument", [{ text: "x" }, {}, { timeoutSeconds: 5 }], /run takes \(prompt, options\); 1 more argument\(s\) were given/],
    ["a Run's secret too short to be masked", [{ text: "x" }, { env: { TOKEN: "abc" } }], /env value of TOKEN is 3 character\(s\), too short to be masked/],
    [
      "a tmpfs secret whose name is a path",
      [{ text: "x" }, { tmpfsSecrets: { "../key": "sk-long-enough-secret" } }],
      /tmpfsSecrets name "\.\.\/key" is not a file name/,
    ],
    ["a tmpfs secret too short to be masked", [{ text: "x" }, { tmpfsSecrets: { key: "abc" } }], /^tmpfsSecrets value of key is not a string of at least/],
    [
      "tmpfs secrets that are a list",
      [{ text: "x" }, { tmpfsSecrets: ["sk-long-enough-secret"] }],
      /tmpfsSecrets \["sk-long-enough-secret"\] is not an object/,
    ],
    [
      "an exclusion that is absolute",
      [{ text: "x" }, { inputs: { directory: "/srv/checkout", exclude: ["dist", "/srv/checkout/out"] } }],
      /^inputs\.exclude\[1\] "\/srv\/checkout\/out" is absolute; write a path relative to the input directory/,
    ],
  ])("resolves as invalid_request for %s, naming it, and creates nothing", async (_what, args, message) => {
    const engine = createFakeEngine();
    const outcome = (await loose(runtime(engine).run)(...args)) as { reason: string; error: string };
    expect(outcome.reason).toBe("invalid_request");
    expect(outcome.error).toMatch(message);
    expect(engine.calls.filter((call) => call.startsWith("create"))).toEqual([]);
  });
});

describe("commandFor and sweep called wrongly", () => {
  it("throw RunRequestError, never a raw TypeError", async () => {
    const r = runtime();
    expect(() => loose(r.commandFor)("hello")).toThrow(RunRequestError);
    expect(() => loose(r.commandFor)({ text: "x" }, { env: { "1BAD": "v" } })).toThrow(/env name "1BAD" is not a POSIX name/);
    expect(() => loose(r.commandFor)({ text: "x" }, { signal: new AbortController().signal })).toThrow(/commandFor option "signal" is not one it knows/);
    await expect(loose(r.sweep)("now")).rejects.toThrow(RunRequestError);
  });
});

describe("a caller's signal", () => {
  it("that is AbortSignal.timeout() ends the Run as timeout, saying the caller's signal timed out", async () => {
    const outcome = await runtime().run({ text: "x" }, { signal: AbortSignal.timeout(200) });
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(outcome.error).toMatch(/^the caller's signal timed out/);
  });

  it("aborted with a reason ends the Run as cancelled, quoting the reason", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the user pressed stop")), 200);
    const outcome = await runtime().run({ text: "x" }, { signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, reason: "cancelled" });
    expect(outcome.error).toMatch(/^the Run was cancelled by the caller: "the user pressed stop"/);
  });
});

describe("a Run's time", () => {
  it("is its own in durationMs; the wait for a slot is queuedMs", async () => {
    const r = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      maxConcurrentRuns: 1,
      run: () => ({
        args: ["agent"],
        stdin: "",
        outcome: async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { ok: true };
        },
      }),
      engine: createFakeEngine(),
    });
    const [first, second] = await Promise.all([r.run({ text: "1" }), r.run({ text: "2" })]);
    expect(first?.queuedMs).toBeLessThan(200);
    expect(second?.queuedMs).toBeGreaterThanOrEqual(250);
    expect(second?.durationMs).toBeLessThan((second?.queuedMs ?? 0) + 1000);
    expect(second?.durationMs).toBeGreaterThanOrEqual(250);
  });

  it("runs DEFAULT_MAX_CONCURRENT_RUNS at once by default, so Runs started together do not silently run one after another", async () => {
    const atOnce = limits.DEFAULT_MAX_CONCURRENT_RUNS;
    const r = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: () => ({
        args: ["agent"],
        stdin: "",
        outcome: async () => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { ok: true };
        },
      }),
      engine: createFakeEngine(),
    });
    const outcomes = await Promise.all(Array.from({ length: atOnce + 1 }, (_, i) => r.run({ text: String(i) })));
    const queued = outcomes.map((outcome) => outcome.queuedMs ?? -1);
    expect(queued.slice(0, atOnce).every((ms) => ms < 200)).toBe(true);
    expect(queued[atOnce]).toBeGreaterThanOrEqual(250);
  });
});
