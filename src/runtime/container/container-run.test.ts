// One Run's container lifecycle, driven through the engine seam against an in-memory fake engine:
// the order of the engine calls, the Outcome each ending gives, stopping (timeout, cancel, a failed
// reader) and that no container of a Run is left behind, whatever failed. No daemon needed.

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine, type FakeContainerScript, type FakeEngine, type FakeEngineOptions } from "../../../test/support/fake-engine.js";
import { atIdleLoad } from "../../../test/support/idle-load.js";
import { readLoadWith } from "../../liveness/index.js";
import { createAgentContainerRuntime, type AgentContainer, type Outcome, type ReaderVerdict, type RunOptions } from "../../index.js";

// The bounds as written, whatever this machine's load: these tests are of what happens at them.
atIdleLoad();

const silent = pino({ level: "silent" });
const PROMPT = "Summarise /work/README.md in one line.";
const SECRET = "sk-fake-0123456789";
const KiB = 1024;

type Reader<R extends ReaderVerdict> = (stdout: AsyncIterable<Uint8Array>) => Promise<R>;
type Collected = ReaderVerdict & { readonly text: string };

/** Every fake made in a test; after it, none may hold a container. */
let fakes: FakeEngine[] = [];
afterEach(() => {
  const made = fakes;
  fakes = [];
  for (const fake of made) expect(fake.existing()).toEqual([]);
});

function fakeEngine(script: FakeContainerScript = {}, options: FakeEngineOptions = {}): FakeEngine {
  const fake = createFakeEngine(script, options);
  fakes.push(fake);
  return fake;
}

async function textOf(stdout: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdout) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/** Says ok whatever stdout was, keeping it. */
const collect: Reader<Collected> = async (stdout) => ({ ok: true, text: await textOf(stdout) });
/** Says not ok when stdout was empty, as a reader of an agent that never ran would. */
const needsOutput: Reader<Collected> = async (stdout) => {
  const text = await textOf(stdout);
  return text.length > 0 ? { ok: true, text } : { ok: false, error: "the agent printed nothing", text };
};

function run<R extends ReaderVerdict>(
  engine: FakeEngine,
  outcome: Reader<R>,
  options: { readonly container?: Omit<AgentContainer, "image">; readonly run?: RunOptions } = {},
): Promise<Outcome<R>> {
  const runtime = createAgentContainerRuntime<R>({
    container: { image: "fake:1", logger: silent, ...options.container },
    run: (prompt) => ({ args: ["agent", "--print"], stdin: prompt.text, outcome }),
    engine,
  });
  return runtime.run({ text: PROMPT }, options.run);
}

/** The calls after the start-up sweep's listing. */
function lifecycleCalls(fake: FakeEngine): string[] {
  // The start-up sweep: containers, then the Runs' networks, then their out/ volumes.
  expect(fake.calls.slice(0, 3)).toEqual([
    "listByLabel agentcage.owner=agentcage",
    "listNetworksByLabel agentcage.owner=agentcage",
    "listVolumesByLabel agentcage.owner=agentcage",
  ]);
  return fake.calls.slice(3);
}

const kills = (fake: FakeEngine): string[] => fake.calls.filter((call) => call.startsWith("kill "));
const nameOf = (outcome: Outcome): string => `agentcage-${outcome.runId}`;
const stopQuickly = { container: { limits: { stopGraceSeconds: 1 } }, run: { timeoutSeconds: 1 } } as const;

describe("a Run's container, through the engine seam", () => {
  describe("when everything answers", () => {
    it("creates, attaches before it starts, writes and closes stdin, waits, inspects and removes, in that order", async () => {
      const fake = fakeEngine({ echoStdin: true });
      const outcome = await run(fake, collect);
      const name = nameOf(outcome);
      expect(lifecycleCalls(fake)).toEqual([`create ${name}`, "attach fake-1", "start fake-1", "wait fake-1", "inspect fake-1", `remove ${name}`]);
      expect(fake.stdinOf("fake-1")).toEqual({ bytes: Buffer.from(PROMPT), closed: true });
    });

    it("resolves as completed with the exit facts, the stdout byte count and the reader's result", async () => {
      const outcome = await run(fakeEngine({ echoStdin: true }), collect);
      expect(outcome).toMatchObject({ ok: true, reason: "completed", stdoutBytes: Buffer.byteLength(PROMPT), stderrBytes: 0, stderr: "" });
      expect(outcome.exit).toEqual({ code: 0, oomKilled: false });
      expect(outcome.result).toEqual({ ok: true, text: PROMPT });
      expect(outcome.error).toBeUndefined();
      expect(Number.isInteger(outcome.durationMs)).toBe(true);
      expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    });
  });

  describe("when the engine tells the exit as an event", () => {
    const tells = { exitEvents: true } as const;

    it("ends at the event, not waiting for `wait` (the engine still releasing the container's network), and inspects nothing", async () => {
      const fake = fakeEngine({ echoStdin: true, fail: { wait: "never" } }, tells);
      const outcome = await run(fake, collect, { run: { timeoutSeconds: 2 } });
      expect(outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 0, oomKilled: false }, result: { text: PROMPT } });
      expect(lifecycleCalls(fake)).toEqual([
        `create ${nameOf(outcome)}`,
        "attach fake-1",
        "start fake-1",
        "wait fake-1",
        "exitEvent fake-1",
        `remove ${nameOf(outcome)}`,
      ]);
    });

    it("takes an agent's own non-zero exit from the event", async () => {
      const outcome = await run(fakeEngine({ exitCode: 3, fail: { wait: "never" } }, tells), needsOutput, { run: { timeoutSeconds: 2 } });
      expect(outcome).toMatchObject({ ok: false, reason: "failed", exit: { code: 3, oomKilled: false } });
    });

    it("waits and inspects when the event tells a death by a signal or out of memory", async () => {
      const fake = fakeEngine({ exitCode: 137, oomKilled: true }, tells);
      const outcome = await run(fake, needsOutput);
      expect(outcome).toMatchObject({ ok: false, reason: "oom", exit: { code: 137, signal: "SIGKILL", oomKilled: true } });
      expect(lifecycleCalls(fake)).toContain("inspect fake-1");
    });

    it("waits and inspects when the engine could not listen", async () => {
      const fake = fakeEngine({ exitCode: 3, fail: { exitEvent: { statusCode: 500 } } }, tells);
      const outcome = await run(fake, needsOutput);
      expect(outcome).toMatchObject({ reason: "failed", exit: { code: 3, oomKilled: false } });
      expect(lifecycleCalls(fake)).toContain("inspect fake-1");
    });
  });

  describe("when the agent or its reader says it failed", () => {
    it("is failed when the reader says not ok, with the reader's error, the exit facts and stderr in the error", async () => {
      const fake = fakeEngine({ stdout: ["partial\n"], stderr: ["model refused\n"], exitCode: 3 });
      const outcome = await run(fake, async (stdout) => ({ ok: false, error: `no result line in ${JSON.stringify(await textOf(stdout))}` }));
      expect(outcome).toMatchObject({ ok: false, reason: "failed", exit: { code: 3, oomKilled: false }, stderr: "model refused\n", stderrBytes: 14 });
      expect(outcome.error).toBe('no result line in "partial\\n"; the agent exited with code 3; stderr: model refused');
    });

    it.each([125, 126, 127])("is unavailable when the agent exits with %i, meaning its command never ran", async (code) => {
      const outcome = await run(fakeEngine({ exitCode: code }), needsOutput);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable", exit: { code, oomKilled: false } });
      expect(outcome.error).toBe(`the agent printed nothing; the agent exited with code ${code}`);
    });

    it("is oom when the engine says the container ran out of memory", async () => {
      const outcome = await run(fakeEngine({ exitCode: 137, oomKilled: true }), needsOutput);
      expect(outcome).toMatchObject({ ok: false, reason: "oom", exit: { code: 137, signal: "SIGKILL", oomKilled: true } });
      expect(outcome.error).toContain("the agent was killed by SIGKILL (exit code 137) after running out of memory");
    });
  });

  describe("when the engine refuses a step", () => {
    it("is unavailable naming the image when create is refused with 404, and removes nothing", async () => {
      const fake = fakeEngine({ fail: { create: { statusCode: 404, message: "No such image: fake:1" } } });
      const outcome = await run(fake, collect);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable", stdoutBytes: 0 });
      expect(outcome.error).toBe('image "fake:1" is not on this engine (No such image: fake:1); build or load it first, nothing is pulled');
      expect(outcome.exit).toBeUndefined();
      expect(lifecycleCalls(fake)).toEqual([`create ${nameOf(outcome)}`]);
    });

    it("still removes by name when create fails with 500, since the container may exist anyway", async () => {
      const fake = fakeEngine({ fail: { create: { statusCode: 500, message: "server error" } } });
      const outcome = await run(fake, collect);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: "the engine refused create: server error" });
      expect(lifecycleCalls(fake)).toEqual([`create ${nameOf(outcome)}`, `remove ${nameOf(outcome)}`]);
    });

    it("is unavailable when attach is refused, and the container is removed without being started", async () => {
      const fake = fakeEngine({ fail: { attach: { statusCode: 500, message: "hijack failed" } } });
      const outcome = await run(fake, collect);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
      expect(outcome.error).toContain("the engine refused attach: hijack failed");
      expect(lifecycleCalls(fake)).toEqual([`create ${nameOf(outcome)}`, "attach fake-1", `remove ${nameOf(outcome)}`]);
    });

    it("is unavailable when start is refused, closing the streams and removing the container", async () => {
      const fake = fakeEngine({ echoStdin: true, fail: { start: { statusCode: 500, message: "cannot start" } } });
      const outcome = await run(fake, collect);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: "the engine refused start: cannot start" });
      expect(outcome.exit).toBeUndefined();
      expect(lifecycleCalls(fake)).toEqual([`create ${nameOf(outcome)}`, "attach fake-1", "start fake-1", `remove ${nameOf(outcome)}`]);
      expect(fake.stdinOf("fake-1")?.bytes.length).toBe(0);
    });

    it("is unavailable when wait fails, still inspecting and removing the container", async () => {
      const fake = fakeEngine({ stdout: ["done\n"], fail: { wait: { statusCode: 500, message: "wait broke" } } });
      const outcome = await run(fake, collect);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
      expect(outcome.error).toContain("the engine refused wait: wait broke");
      expect(lifecycleCalls(fake).slice(-2)).toEqual(["inspect fake-1", `remove ${nameOf(outcome)}`]);
    });

    it("leaves out the exit facts when inspect fails, and still completes", async () => {
      const fake = fakeEngine({ stdout: ["done\n"], fail: { inspect: { statusCode: 500 } } });
      const outcome = await run(fake, collect);
      expect(outcome).toMatchObject({ ok: true, reason: "completed", stdoutBytes: 5 });
      expect(outcome.exit).toBeUndefined();
      expect(lifecycleCalls(fake).at(-1)).toBe(`remove ${nameOf(outcome)}`);
    });
  });

  describe("when the container dies of a signal the Run did not send", () => {
    it("is cancelled, stopped from outside, while the engine still answers", async () => {
      const outcome = await run(fakeEngine({ stdout: ["partial"], exitCode: 143 }), collect);
      expect(outcome).toMatchObject({ ok: false, reason: "cancelled", exit: { code: 143, signal: "SIGTERM" } });
      expect(outcome.error).toContain("the container was stopped from outside the Run (SIGTERM this Run did not send");
    });

    it("is unavailable when the engine stops answering after it", async () => {
      const outcome = await run(fakeEngine({ stdout: ["partial"], exitCode: 143, fail: { ping: { code: "ECONNREFUSED" } } }), collect);
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
      expect(outcome.error).toContain("the engine went away while the Run ran");
    });
  });

  describe("when the engine breaks its stream protocol", () => {
    it("is unavailable, saying so, and the still-running container is killed and removed", async () => {
      const fake = fakeEngine({ stdout: ["half an answer"], breakStream: "frame 2 has the header [7, 0, 0, 0], which names no stream" });
      const outcome = await run(fake, collect, { run: { timeoutSeconds: 60 } });
      expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
      expect(outcome.error).toContain("the engine broke its attach stream's protocol (frame 2 has the header [7, 0, 0, 0]");
      expect(kills(fake)).toEqual(["kill fake-1 SIGKILL"]);
    });
  });

  describe("when the agent has answered", () => {
    it("kills an agent that lingers past its plan's exitGraceMs, and the verdict stands", async () => {
      const fake = fakeEngine({ stdout: ["the answer\n"], hang: true });
      const runtime = createAgentContainerRuntime({
        container: { image: "fake:1", logger: silent },
        run: (prompt) => ({
          args: ["agent"],
          stdin: prompt.text,
          exitGraceMs: 100,
          // Returns at the first chunk, as a reader of a terminal record does.
          outcome: async (stdout) => {
            for await (const chunk of stdout) return { ok: true, text: Buffer.from(chunk).toString() };
            return { ok: false };
          },
        }),
        engine: fake,
      });
      const started = performance.now();
      const outcome = await runtime.run({ text: PROMPT }, { timeoutSeconds: 60 });
      expect(outcome).toMatchObject({ ok: true, reason: "completed", result: { text: "the answer\n" }, exit: { code: 137, signal: "SIGKILL" } });
      expect(kills(fake)).toEqual(["kill fake-1 SIGKILL"]);
      expect(performance.now() - started).toBeLessThan(30_000);
    });

    it("stretches the exit grace by the load: an agent a busy machine lets exit late is not killed", async () => {
      // Read as 8 runnable tasks a core: a grace of 100 ms is 800 ms; the agent exits 400 ms after it started.
      const restore = readLoadWith(() => ({ runnable: 0, average: 8, cores: 1 }));
      try {
        const fake = fakeEngine({ stdout: ["the answer\n"], timed: [{ afterMs: 400, stderr: "done\n" }] });
        const runtime = createAgentContainerRuntime({
          container: { image: "fake:1", logger: silent },
          run: (prompt) => ({
            args: ["agent"],
            stdin: prompt.text,
            exitGraceMs: 100,
            outcome: async (stdout) => {
              for await (const chunk of stdout) return { ok: true, text: Buffer.from(chunk).toString() };
              return { ok: false };
            },
          }),
          engine: fake,
        });
        const outcome = await runtime.run({ text: PROMPT }, { timeoutSeconds: 60 });
        expect(outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 0 } });
        expect(kills(fake)).toEqual([]);
      } finally {
        restore();
        readLoadWith(() => ({ runnable: 0, average: 0, cores: 1 }));
      }
    });

    it("refuses an exitGraceMs that is not a whole number of milliseconds, as a plan_error", async () => {
      const fake = fakeEngine({});
      const runtime = createAgentContainerRuntime({
        container: { image: "fake:1", logger: silent },
        run: (prompt) => ({ args: ["agent"], stdin: prompt.text, exitGraceMs: -1, outcome: collect }),
        engine: fake,
      });
      const outcome = await runtime.run({ text: PROMPT });
      expect(outcome).toMatchObject({ ok: false, reason: "plan_error", error: expect.stringContaining("exitGraceMs -1 is out of range") });
      expect(fake.calls.filter((call) => call.startsWith("create"))).toEqual([]);
    });
  });

  describe("when the Run is stopped", () => {
    it("sends SIGTERM at the timeout and SIGKILL after the grace period to a container that ignores SIGTERM", async () => {
      const fake = fakeEngine({ stdout: ["working\n"], hang: true, ignoreSigterm: true });
      const outcome = await run(fake, collect, stopQuickly);
      expect(outcome).toMatchObject({ ok: false, reason: "timeout", exit: { code: 137, signal: "SIGKILL", oomKilled: false } });
      expect(outcome.error).toMatch(/^the Run timed out after 1 s; /);
      expect(kills(fake)).toEqual(["kill fake-1 SIGTERM", "kill fake-1 SIGKILL"]);
      // SIGKILL waited for the grace period after the 1 s timeout (timers never fire early by more than a tick).
      expect(outcome.durationMs).toBeGreaterThanOrEqual(1900);
      expect(lifecycleCalls(fake).at(-1)).toBe(`remove ${nameOf(outcome)}`);
    });

    it("sends no SIGKILL to a container that exits on SIGTERM", async () => {
      const fake = fakeEngine({ stdout: ["working\n"], hang: true });
      const outcome = await run(fake, collect, stopQuickly);
      expect(outcome).toMatchObject({ reason: "timeout", exit: { code: 143, signal: "SIGTERM", oomKilled: false } });
      expect(kills(fake)).toEqual(["kill fake-1 SIGTERM"]);
    });

    it("is cancelled when the caller aborts mid-run, and the container is stopped", async () => {
      const controller = new AbortController();
      const fake = fakeEngine({ stdout: ["first line\n"], hang: true });
      const outcome = await run(
        fake,
        async (stdout) => {
          for await (const chunk of stdout) if (chunk.length > 0) controller.abort();
          return { ok: true };
        },
        { run: { signal: controller.signal } },
      );
      expect(outcome).toMatchObject({ ok: false, reason: "cancelled", exit: { code: 143, signal: "SIGTERM", oomKilled: false } });
      expect(outcome.error).toContain("the Run was cancelled by the caller");
      expect(kills(fake)).toEqual(["kill fake-1 SIGTERM"]);
    });

    it("is reader_error when the reader throws, and the container is stopped", async () => {
      const fake = fakeEngine({ stdout: ["not json\n"], hang: true });
      const outcome = await run(fake, async (stdout) => {
        for await (const chunk of stdout) throw new Error(`unparseable line ${JSON.stringify(Buffer.from(chunk).toString())}`);
        return { ok: true };
      });
      expect(outcome).toMatchObject({ ok: false, reason: "reader_error", exit: { code: 143, signal: "SIGTERM", oomKilled: false } });
      expect(outcome.error).toContain('the reader threw: unparseable line "not json\\n"');
      expect(kills(fake)).toEqual(["kill fake-1 SIGTERM"]);
    });
  });

  describe("its output", () => {
    it("is drained to its end when the reader returns early, so the agent is not blocked and the Run completes", async () => {
      // 4 MiB: far past what the stdout channel and the stream buffer hold before they push back.
      const chunks = Array.from({ length: 64 }, () => new Uint8Array(64 * KiB).fill(0x61));
      const fake = fakeEngine({ stdout: chunks });
      // A timeout turns a blocked agent into a failed assertion rather than a hung test.
      const outcome = await run(
        fake,
        async (stdout) => {
          for await (const chunk of stdout) return { ok: chunk.length > 0 };
          return { ok: false };
        },
        { run: { timeoutSeconds: 20 } },
      );
      expect(outcome).toMatchObject({ ok: true, reason: "completed", stdoutBytes: 64 * 64 * KiB, exit: { code: 0, oomKilled: false } });
      expect(kills(fake)).toEqual([]);
    });

    it("keeps stderr, with a secret the agent printed on stderr and stdout masked everywhere in the Outcome", async () => {
      const fake = fakeEngine({ stdout: [`token ${SECRET}\n`], stderr: [`using key ${SECRET}\n`], exitCode: 1 });
      const outcome = await run(
        fake,
        async (stdout) => {
          const text = await textOf(stdout);
          return { ok: false, error: `unexpected output: ${text.trim()}`, text };
        },
        { container: { env: { API_KEY: SECRET } } },
      );
      expect(outcome).toMatchObject({ reason: "failed", stderr: "using key [REDACTED]\n", stderrBytes: Buffer.byteLength(`using key ${SECRET}\n`) });
      expect(outcome.result).toEqual({ ok: false, error: "unexpected output: token [REDACTED]", text: "token [REDACTED]\n" });
      expect(outcome.error).toBe("unexpected output: token [REDACTED]; the agent exited with code 1; stderr: using key [REDACTED]");
      expect(JSON.stringify(outcome)).not.toContain(SECRET);
    });

    it("does not hold up stopping a timed-out container when the reader never reads", async () => {
      // The agent fills stdout past every buffer while nobody reads, then hangs.
      const chunks = Array.from({ length: 64 }, () => new Uint8Array(64 * KiB).fill(0x62));
      const fake = fakeEngine({ stdout: chunks, hang: true });
      const never = new Promise<never>(() => undefined);
      const boundMs = (1 + 1) * 1000 + 1000; // timeout + grace, and a second to spare
      let bound: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        run(fake, () => never, stopQuickly),
        new Promise<"still running">((resolve) => (bound = setTimeout(() => resolve("still running"), boundMs))),
      ]).finally(() => clearTimeout(bound));
      expect(result).not.toBe("still running");
      const outcome = result as Outcome;
      expect(outcome).toMatchObject({ ok: false, reason: "timeout", exit: { code: 143, signal: "SIGTERM", oomKilled: false } });
      // Backpressure reached the agent: it could not write all it meant to.
      expect(outcome.stdoutBytes).toBeLessThan(64 * 64 * KiB);
      expect(kills(fake)).toEqual(["kill fake-1 SIGTERM"]);
    });
  });
});
