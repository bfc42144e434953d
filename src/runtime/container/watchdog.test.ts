// The stall watchdog through a whole Run against the fake engine: an agent that prints nothing and
// uses no CPU is stopped as stalled; one that computes, or prints, is not; the warning comes at half
// time; CPU readings that hang or fail never make a Run stalled; without stallSeconds nothing is read.

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine, type FakeContainerScript, type FakeEngine } from "../../../test/support/fake-engine.js";
import { atIdleLoad } from "../../../test/support/idle-load.js";
import { createAgentContainerRuntime, type Outcome, type ReaderVerdict, type RunOptions } from "../../index.js";
import { STALL_SAMPLE_MAX_MS, STALL_SAMPLE_MIN_MS } from "../limits.js";
import { sampleIntervalMs, stallDetail } from "./watchdog.js";

// The bounds as written, whatever this machine's load: these tests are of what happens at them.
atIdleLoad();

const silent = pino({ level: "silent" });
const MS = 1_000_000;
/** An agent computing flat out: a millisecond of CPU a millisecond. */
const busy = (sinceStartMs: number): number => MS + sinceStartMs * MS;

let fakes: FakeEngine[] = [];
afterEach(() => {
  const made = fakes;
  fakes = [];
  for (const fake of made) expect(fake.existing()).toEqual([]);
});

async function textOf(stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict & { text: string }> {
  let text = "";
  for await (const chunk of stdout) text += Buffer.from(chunk).toString("utf8");
  return { ok: true, text };
}

function runScript(
  script: FakeContainerScript,
  options: RunOptions,
  reader: (stdout: AsyncIterable<Uint8Array>) => Promise<ReaderVerdict> = textOf,
): Promise<Outcome> & { fake: FakeEngine } {
  const fake = createFakeEngine(script);
  fakes.push(fake);
  const runtime = createAgentContainerRuntime({
    container: { image: "fake:1", logger: silent, limits: { stopGraceSeconds: 1 } },
    run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: reader }),
    engine: fake,
  });
  return Object.assign(runtime.run({ text: "hi" }, { timeoutSeconds: 30, ...options }), { fake });
}

const cpuQuestions = (fake: FakeEngine): number => fake.calls.filter((call) => call.startsWith("cpuUsage ")).length;

describe("the stall watchdog", () => {
  it("stops an agent that prints nothing and uses no CPU for stallSeconds, as stalled, saying so", async () => {
    const outcome = await runScript({ stdout: ['{"type":"system"}\n'], hang: true }, { stallSeconds: 1 });
    expect(outcome).toMatchObject({ ok: false, reason: "stalled", exit: { code: 143, signal: "SIGTERM" } });
    expect(outcome.error).toMatch(/^the agent printed nothing and used no CPU for 1 s \(stallSeconds 1\); it was stopped; the agent was killed by SIGTERM/);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1000);
    // stallSeconds and one sampling interval, three times over for a busy machine.
    expect(outcome.durationMs).toBeLessThan(3 * (1000 + sampleIntervalMs(1000)));
  });

  it("takes a waiting CLI's timers (8 ms/s with spikes of 90 ms, as claude's measured) for silence, and stops it on time", async () => {
    // Cumulative CPU of the measured profile: a steady trickle and a 90 ms spike every 1.3 s.
    const idleClaude = (sinceStartMs: number): number => 8 * sinceStartMs * 1000 + Math.floor(sinceStartMs / 1300) * 90 * MS;
    const outcome = await runScript(
      { stdout: ['{"type":"system"}\n'], cpuNs: idleClaude, timed: [{ afterMs: 20_000, stdout: "too late\n" }] },
      { stallSeconds: 2 },
    );
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: false, reason: "stalled" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(2000);
    expect(outcome.durationMs).toBeLessThan(3 * (2000 + sampleIntervalMs(2000)));
  });

  it("takes quiet work at a tenth of a core and more, sustained, for work", async () => {
    const quietWork = (sinceStartMs: number): number => 150 * sinceStartMs * 1000;
    const outcome = await runScript({ cpuNs: quietWork, timed: [{ afterMs: 3000, stdout: "built\n" }] }, { stallSeconds: 1 });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { text: "built\n" } });
  });

  it("lets an agent that prints nothing but computes run past stallSeconds to its end", async () => {
    const outcome = await runScript({ cpuNs: busy, timed: [{ afterMs: 2500, stdout: "done\n" }] }, { stallSeconds: 1 });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { text: "done\n" } });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(2500);
  });

  it("starts the clock over at every byte the agent prints, on stdout or stderr", async () => {
    const timed = [600, 1200, 1800, 2400].map((afterMs, i) => (i % 2 === 0 ? { afterMs, stdout: "." } : { afterMs, stderr: "." }));
    const outcome = await runScript({ timed }, { stallSeconds: 1 });
    expect(outcome).toMatchObject({ ok: true, reason: "completed" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(2400);
  });

  it("says the output went quiet before the CPU did when it did", async () => {
    // Computes for its first 1.5 s after printing, then idles.
    const outcome = await runScript({ stdout: ["working\n"], hang: true, cpuNs: (ms) => MS + Math.min(ms, 1500) * MS }, { stallSeconds: 1 });
    expect(outcome.reason).toBe("stalled");
    expect(outcome.error).toMatch(/^the agent printed nothing for 2 s and used no CPU for the last 1 s \(stallSeconds 1\)/);
  });

  it("warns once at half the stall time, and again only after the agent was active and went quiet again", async () => {
    const once: number[] = [];
    const quiet = await runScript({ hang: true }, { stallSeconds: 2, onStallWarning: ({ silentMs }) => once.push(silentMs) });
    expect(quiet.reason).toBe("stalled");
    expect(once).toHaveLength(1);
    expect(once[0]).toBeGreaterThanOrEqual(1000);
    expect(once[0]).toBeLessThan(2000);

    const twice: number[] = [];
    const woke = await runScript(
      { hang: true, timed: [{ afterMs: 1600, stdout: "still here\n" }] },
      { stallSeconds: 2, onStallWarning: ({ silentMs }) => twice.push(silentMs) },
    );
    expect(woke.reason).toBe("stalled");
    expect(twice).toHaveLength(2);
    expect(woke.durationMs).toBeGreaterThanOrEqual(1600 + 2000);
  });

  it("goes on when onStallWarning throws", async () => {
    const outcome = await runScript(
      { hang: true },
      {
        stallSeconds: 2,
        onStallWarning: () => {
          throw new Error("the caller's view broke");
        },
      },
    );
    expect(outcome.reason).toBe("stalled");
  });

  it("never calls a Run stalled when every CPU reading hangs, or fails", async () => {
    const hanging = await runScript({ hang: true, cpuNs: () => "hang" }, { stallSeconds: 1, timeoutSeconds: 2 });
    expect(hanging).toMatchObject({ ok: false, reason: "timeout" });
    expect(hanging.error).toMatch(/^the Run timed out after 2 s/);

    const failing = await runScript(
      { hang: true, fail: { cpuUsage: { statusCode: 500, message: "stats unavailable" } } },
      { stallSeconds: 1, timeoutSeconds: 2 },
    );
    expect(failing.reason).toBe("timeout");
  });

  it("does not count readings across a failed one, so a silence is proven only by readings that answered", async () => {
    const everyOther = (_ms: number, question: number): number => {
      if (question % 2 === 1) throw new Error("stats unavailable");
      return MS;
    };
    const outcome = await runScript({ hang: true, cpuNs: everyOther }, { stallSeconds: 1, timeoutSeconds: 2 });
    expect(outcome.reason).toBe("timeout");
  });

  it("abandons a reading that hangs and goes on reading, so a stall is still found after it", async () => {
    const firstHangs = (_ms: number, question: number): number | "hang" => (question === 1 ? "hang" : MS);
    const outcome = await runScript({ hang: true, cpuNs: firstHangs }, { stallSeconds: 1 });
    expect(outcome.reason).toBe("stalled");
    // The hung reading is given up on after STALL_SAMPLE_MIN_TIMEOUT_MS (2 s), then the silence is proven anew.
    expect(outcome.durationMs).toBeGreaterThanOrEqual(2000 + 1000);
  });

  it("does not count the silence of an agent held up by a reader that stopped reading", async () => {
    const neverReads = async (stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict> => {
      for await (const _chunk of stdout) await new Promise(() => undefined);
      return { ok: true };
    };
    const flood = Buffer.alloc(4 * 1024 * 1024, "a");
    const outcome = await runScript({ stdout: [flood, flood], hang: true }, { stallSeconds: 1, timeoutSeconds: 2 }, neverReads);
    expect(outcome.reason).toBe("timeout");
  });

  it("reads no CPU time at all without stallSeconds", async () => {
    const run = runScript({ hang: true }, { timeoutSeconds: 2 });
    const outcome = await run;
    expect(outcome.reason).toBe("timeout");
    expect(cpuQuestions(run.fake)).toBe(0);
  });

  it("reads the CPU time every fifth of the stall time, one reading at a time, and judges a late answer as of its question", async () => {
    let inFlight = 0;
    let most = 0;
    const slowAnswer = async (): Promise<number> => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 700));
      inFlight--;
      return MS;
    };
    const run = runScript({ hang: true, cpuNs: slowAnswer }, { stallSeconds: 2 });
    const outcome = await run;
    expect(outcome.reason).toBe("stalled");
    expect(most).toBe(1);
    // Every 400 ms, but a question waits for the one before it: one answer each 800 ms or so.
    expect(cpuQuestions(run.fake)).toBeGreaterThanOrEqual(3);
    expect(cpuQuestions(run.fake)).toBeLessThanOrEqual(5);
    // The stall time and one slow answer late at most, three times over for a busy machine.
    expect(outcome.durationMs).toBeLessThan(3 * (2000 + 800));
  });

  it.each([[0], [86_401], [2.5], ["600"], [Number.NaN], [null]])("refuses stallSeconds %s before anything starts, naming the option", async (stallSeconds) => {
    const run = runScript({}, { stallSeconds } as unknown as RunOptions);
    const outcome = await run;
    expect(outcome.reason).toBe("invalid_request");
    const quoted = Number.isNaN(stallSeconds) ? "NaN" : JSON.stringify(stallSeconds);
    expect(outcome.error).toContain(`stallSeconds ${quoted} is not`);
    expect(outcome.error).toMatch(
      /^stallSeconds .+ is not a whole number of seconds from 1 to 86400; write how long the agent may print nothing and use no CPU, like 600, or leave it out$/,
    );
    expect(run.fake.calls.filter((call) => call.startsWith("create "))).toEqual([]);
  });

  it("refuses an onStallWarning that is not a function, quoting it", async () => {
    const outcome = await runScript({}, { stallSeconds: 5, onStallWarning: "log it" } as unknown as RunOptions);
    expect(outcome).toMatchObject({
      reason: "invalid_request",
      error: 'onStallWarning "log it" is not a function; pass ({ silentMs }) => ..., or leave it out',
    });
  });
});

describe("the watchdog's sampling and its sentence", () => {
  it("reads every fifth of the stall time, within its bounds", () => {
    expect(sampleIntervalMs(1000)).toBe(STALL_SAMPLE_MIN_MS);
    expect(sampleIntervalMs(3000)).toBe(600);
    expect(sampleIntervalMs(600_000)).toBe(STALL_SAMPLE_MAX_MS);
  });

  it("says how long the agent was silent, and how long it printed nothing when that was longer", () => {
    expect(stallDetail({ silentMs: 600_400, quietOutputMs: 600_400 }, 600)).toBe(
      "the agent printed nothing and used no CPU for 600 s (stallSeconds 600); it was stopped",
    );
    expect(stallDetail({ silentMs: 300_100, quietOutputMs: 1_250_000 }, 300)).toBe(
      "the agent printed nothing for 1250 s and used no CPU for the last 300 s (stallSeconds 300); it was stopped",
    );
  });
});
