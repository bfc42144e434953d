// The Run lifecycle at its bounds, with the bounds lowered so a fake engine reaches them at once:
// the stdout limit, and an engine that stops answering. Kept apart from container-run.test.ts
// because vi.mock replaces limits.js for every module of this file.

import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFakeEngine, type FakeContainerScript, type FakeEngine } from "../../../test/support/fake-engine.js";
import { atIdleLoad } from "../../../test/support/idle-load.js";
import { createAgentContainerRuntime, type Outcome, type ReaderVerdict } from "../../index.js";

// The bounds as written, whatever this machine's load: these tests are of what happens at them.
atIdleLoad();

vi.mock("../limits.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../limits.js")>()),
  MAX_STDOUT_BYTES: 1024,
  ENGINE_ANSWER_MARGIN_MS: 200,
  ENGINE_CLEANUP_TIMEOUT_MS: 200,
}));

type Counted = ReaderVerdict & { readonly bytes: number };

let fakes: FakeEngine[] = [];
afterEach(() => {
  const made = fakes;
  fakes = [];
  for (const fake of made) expect(fake.existing()).toEqual([]);
});

function fakeEngine(script: FakeContainerScript): FakeEngine {
  const fake = createFakeEngine(script);
  fakes.push(fake);
  return fake;
}

async function countBytes(stdout: AsyncIterable<Uint8Array>): Promise<Counted> {
  let bytes = 0;
  for await (const chunk of stdout) bytes += chunk.length;
  return { ok: true, bytes };
}

/** A Run with a 1 s timeout and a 1 s grace period: the engine deadline is 1000 + 1000 + 200 ms. */
function run(fake: FakeEngine, logger = pino({ level: "silent" })): Promise<Outcome<Counted>> {
  const runtime = createAgentContainerRuntime<Counted>({
    container: { image: "fake:1", logger, limits: { stopGraceSeconds: 1 } },
    run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: countBytes }),
    engine: fake,
  });
  return runtime.run({ text: "hi" }, { timeoutSeconds: 1 });
}

const nameOf = (outcome: Outcome<Counted>): string => `agentcage-${outcome.runId}`;
const kills = (fake: FakeEngine): string[] => fake.calls.filter((call) => call.startsWith("kill "));

describe("a Run at its limits", () => {
  it("sees the limits lowered by the mock", async () => {
    const { limits } = await import("../../index.js");
    expect(limits).toMatchObject({ MAX_STDOUT_BYTES: 1024, ENGINE_ANSWER_MARGIN_MS: 200, ENGINE_CLEANUP_TIMEOUT_MS: 200 });
  });

  it("kills the container at once with SIGKILL when stdout passes MAX_STDOUT_BYTES, and ends as output_limit", async () => {
    const fake = fakeEngine({ stdout: Array.from({ length: 8 }, () => new Uint8Array(512).fill(0x61)), hang: true });
    const outcome = await run(fake);
    expect(outcome).toMatchObject({ ok: false, reason: "output_limit", exit: { code: 137, signal: "SIGKILL", oomKilled: false } });
    expect(outcome.error).toContain("stdout passed its limit of 1024 bytes (MAX_STDOUT_BYTES) and the agent was killed");
    // The reader is handed exactly the bytes under the limit; the count includes the chunk that passed it.
    expect(outcome.result?.bytes).toBe(1024);
    expect(outcome.stdoutBytes).toBeGreaterThan(1024);
    expect(kills(fake)).toEqual(["kill fake-1 SIGKILL"]);
  });

  it("gives up on a wait and kills that never answer once timeout + grace + ENGINE_ANSWER_MARGIN_MS have passed, and still removes the container", async () => {
    const fake = fakeEngine({ hang: true, fail: { wait: "never", kill: "never" } });
    const outcome = await run(fake);
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(outcome.error).toContain("the engine did not answer within 2200 ms of the Run's start");
    expect(outcome.exit).toBeUndefined();
    expect(kills(fake)).toEqual(["kill fake-1 SIGTERM", "kill fake-1 SIGKILL"]);
    // Past the deadline the engine is not asked to inspect, only to remove.
    expect(fake.calls).not.toContain("inspect fake-1");
    expect(fake.calls.at(-1)).toBe(`remove ${nameOf(outcome)}`);
  });

  it("gives up on a create that never answers and removes by name what it may have created", async () => {
    const fake = fakeEngine({ fail: { create: "never" } });
    const outcome = await run(fake);
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(outcome.error).toContain("the engine did not answer within 2200 ms");
    // After the start-up sweep's listings (containers, networks, volumes): the create, then the remove by name.
    expect(fake.calls.filter((call) => !call.startsWith("list"))).toEqual([`create ${nameOf(outcome)}`, `remove ${nameOf(outcome)}`]);
  });

  it("bounds an inspect that never answers by ENGINE_CLEANUP_TIMEOUT_MS, completing without exit facts", async () => {
    const fake = fakeEngine({ stdout: ["done\n"], fail: { inspect: "never" } });
    const outcome = await run(fake);
    expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { ok: true, bytes: 5 } });
    expect(outcome.exit).toBeUndefined();
    expect(outcome.durationMs).toBeLessThan(5000); // the unlowered bound is 30 s
    expect(fake.calls.slice(-2)).toEqual(["inspect fake-1", `remove ${nameOf(outcome)}`]);
  });

  it("still ends when remove never answers, logging that sweep() will remove the container", async () => {
    const lines: string[] = [];
    const fake = createFakeEngine({ stdout: ["done\n"], fail: { remove: "never" } });
    const outcome = await run(fake, pino({ level: "info" }, { write: (line: string) => void lines.push(line) }));
    expect(outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 0, oomKilled: false } });
    expect(outcome.durationMs).toBeLessThan(5000); // the unlowered bound is 30 s
    expect(lines.some((line) => line.includes("container could not be removed; sweep() will remove it"))).toBe(true);
    // The one case a container is left behind: the engine never answered its removal.
    expect(fake.existing()).toEqual([nameOf(outcome)]);
  });
});
