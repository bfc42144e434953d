// Runs that the runtime ends early, against the real engine: timeouts, cancels, floods, readers
// that throw, containers that vanish, and queued Runs. After each, no container of the Run remains.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime, limits, type AgentContainer, type ReaderVerdict, type RunPlan } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun, docker, expectOkLine } from "../../test/support/engine.js";
import { newRunId } from "./run-id.js";

const quiet = capturingLogger().logger;

function shRuntime<R extends ReaderVerdict>(script: string, outcome: RunPlan<R>["outcome"], container: Partial<AgentContainer> = {}, maxConcurrentRuns = 1) {
  return createAgentContainerRuntime<R>({
    container: { image: TEST_IMAGE, logger: quiet, ...container },
    run: () => ({ args: ["sh", "-c", script], stdin: "", outcome }),
    maxConcurrentRuns,
  });
}

/** Reads until the agent prints its first line, then calls `then`, then drains. */
function afterFirstLine(then: () => void) {
  return async (stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict> => {
    let seen = false;
    for await (const _chunk of stdout) {
      if (!seen) then();
      seen = true;
    }
    return { ok: false, error: "the agent stopped before it was done" };
  };
}

describe("a Run the runtime ends early", () => {
  it("kills a container that ignores SIGTERM once the grace period after the timeout is over", async () => {
    const started = performance.now();
    const outcome = await shRuntime("trap '' TERM; echo up; while true; do sleep 1; done", expectOkLine, {
      timeoutSeconds: 1,
      limits: { stopGraceSeconds: 1 },
    }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: false, reason: "timeout", exit: { code: 137, signal: "SIGKILL" } });
    expect(outcome.error).toMatch(/^the Run timed out after 1 s; .*killed by SIGKILL/);
    expect(performance.now() - started).toBeLessThan(8000);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("names a timeout a timeout even when the agent caught SIGTERM and exited 0", async () => {
    const runtime = shRuntime("trap 'exit 0' TERM; echo up; while true; do sleep 0.1; done", expectOkLine, { timeoutSeconds: 30 });
    const outcome = await runtime.run({ text: "" }, { timeoutSeconds: 1 });
    expect(outcome).toMatchObject({ ok: false, reason: "timeout", exit: { code: 0 } });
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("ends a Run cancelled mid-way as cancelled", async () => {
    const controller = new AbortController();
    const runtime = shRuntime(
      "echo up; sleep 30",
      afterFirstLine(() => controller.abort()),
    );
    const outcome = await runtime.run({ text: "" }, { signal: controller.signal });
    expect(outcome).toMatchObject({ ok: false, reason: "cancelled", exit: { signal: "SIGTERM" } });
    expect(outcome.durationMs).toBeLessThan(10_000);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("keeps what the agent prints on stdout after a cancel, in stdout.txt and for its reader, as it keeps stderr", async () => {
    const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-stop-"));
    try {
      const controller = new AbortController();
      let seen = "";
      let readerDone: () => void = () => undefined;
      const read = new Promise<void>((resolve) => (readerDone = resolve));
      const runtime = createAgentContainerRuntime({
        container: { image: TEST_IMAGE, logger: quiet, staging: { runtimeDir, keepRuns: true } },
        run: () => ({
          // Asked to stop, it says so on both streams, as an agent printing its last words does.
          args: ["sh", "-c", "trap 'echo stopped-out; echo stopped-err >&2; exit 3' TERM; echo up; while true; do sleep 0.1; done"],
          stdin: "",
          outcome: async (stdout) => {
            for await (const chunk of stdout) {
              seen += Buffer.from(chunk).toString("utf8");
              if (seen.includes("up\n")) controller.abort();
            }
            readerDone();
            return { ok: false, error: "stopped before it was done" };
          },
        }),
      });
      const outcome = await runtime.run({ text: "" }, { signal: controller.signal });
      await Promise.race([read, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      expect(outcome).toMatchObject({ ok: false, reason: "cancelled", exit: { code: 3 }, stdoutBytes: "up\nstopped-out\n".length });
      expect(outcome.stderr).toBe("stopped-err\n");
      expect(readFileSync(join(runtimeDir, outcome.runId, "stdout.txt"), "utf8")).toBe("up\nstopped-out\n");
      expect(seen).toBe("up\nstopped-out\n");
      expect(containersOfRun(outcome.runId)).toEqual([]);
    } finally {
      rmSync(runtimeDir, { recursive: true, force: true });
    }
  });

  it("starts nothing for a Run cancelled before it began, or while it waited for a slot", async () => {
    const runtime = shRuntime("sleep 3; echo ok", expectOkLine);
    const before = await runtime.run({ text: "" }, { signal: AbortSignal.abort() });
    expect(before.reason).toBe("cancelled");

    const first = runtime.run({ text: "" });
    const controller = new AbortController();
    const queued = runtime.run({ text: "" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const cancelled = await queued;
    expect(cancelled.reason).toBe("cancelled");
    expect(cancelled.error).toContain("waited for a free slot");
    expect(cancelled.durationMs).toBeLessThan(2000);
    expect((await first).reason).toBe("completed");
  });

  it("kills an output flood at the stdout limit and says so", async () => {
    const outcome = await shRuntime("cat /dev/zero", collectStdout).run({ text: "" });
    expect(outcome).toMatchObject({ ok: false, reason: "output_limit" });
    expect(outcome.result?.bytes.length).toBe(limits.MAX_STDOUT_BYTES);
    expect(outcome.error).toContain("MAX_STDOUT_BYTES");
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("ends a Run whose reader throws as reader_error and stops the agent", async () => {
    const outcome = await shRuntime("echo up; sleep 30", async (stdout) => {
      for await (const _chunk of stdout) throw new Error("cannot parse this");
      return { ok: true };
    }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: false, reason: "reader_error" });
    expect(outcome.error).toMatch(/^the reader threw: cannot parse this; the agent was killed by SIGTERM/);
    expect(outcome.durationMs).toBeLessThan(10_000);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("drains stdout to its end when the reader stops early, so the agent is never blocked", async () => {
    // 8 MiB is far past any pipe buffer: an undrained agent would hang until the timeout.
    const outcome = await shRuntime(
      "echo first; head -c 8388608 /dev/zero; echo; echo ok",
      async (stdout) => {
        for await (const _chunk of stdout) break;
        return { ok: true };
      },
      { timeoutSeconds: 20 },
    ).run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 0 } });
    expect(outcome.stdoutBytes).toBe(6 + 8388608 + 1 + 3);
  });

  it("resolves and leaves nothing behind when the container is removed under a running Run", async () => {
    // Named here, so the container removed is this Run's and no other's on a shared engine.
    const runId = newRunId();
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet },
      run: () => ({
        args: ["sh", "-c", "echo up; sleep 30"],
        stdin: "",
        outcome: afterFirstLine(() => {
          for (const id of containersOfRun(runId)) docker("rm", "--force", id);
        }),
      }),
    });
    const outcome = await runtime.run({ text: "" }, { runId });
    expect(outcome.runId).toBe(runId);
    expect(outcome.ok).toBe(false);
    expect(outcome.durationMs).toBeLessThan(10_000);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});

describe("Runs side by side", () => {
  const timed = async (stdout: AsyncIterable<Uint8Array>) => {
    let first = 0;
    for await (const _chunk of stdout) first ||= performance.now();
    return { ok: true, first, last: performance.now() };
  };

  it("queues extra Runs by default, and overlaps them under maxConcurrentRuns", async () => {
    const serial = shRuntime("echo a; sleep 1; echo b", timed);
    const [a, b] = await Promise.all([serial.run({ text: "" }), serial.run({ text: "" })]);
    const [early, late] = [a.result!, b.result!].sort((x, y) => x.first - y.first);
    expect(late!.first).toBeGreaterThan(early!.last);

    const parallel = shRuntime("echo a; sleep 1; echo b", timed, {}, 2);
    const [c, d] = await Promise.all([parallel.run({ text: "" }), parallel.run({ text: "" })]);
    const [e, l] = [c.result!, d.result!].sort((x, y) => x.first - y.first);
    expect(l!.first).toBeLessThan(e!.last);
  });
});

describe("sweep()", () => {
  it("runs before the first Run and removes this owner's containers that belong to no live Run", async () => {
    const owner = "agentcage-sweep-test";
    const leftover = docker("create", "--label", `agentcage.owner=${owner}`, "--label", "agentcage.run=deadbeefdeadbeef", TEST_IMAGE, "true");
    const other = docker("create", "--label", "agentcage.owner=someone-else", TEST_IMAGE, "true");
    let later = "";
    try {
      let swept: readonly string[] | undefined;
      const runtime = createAgentContainerRuntime({
        container: { image: TEST_IMAGE, logger: quiet, owner },
        run: () => ({
          args: ["sh", "-c", "echo up; sleep 1; echo ok"],
          stdin: "",
          outcome: async (stdout) => {
            // Sweep while this Run is live: its own container must survive.
            for await (const _chunk of stdout) if (later !== "" && swept === undefined) swept = (await runtime.sweep()).removed;
            return { ok: true };
          },
        }),
      });
      expect((await runtime.run({ text: "" })).reason).toBe("completed");
      expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.owner=${owner}`)).toBe("");

      later = docker("create", "--label", `agentcage.owner=${owner}`, "--label", "agentcage.run=feedfacefeedface", TEST_IMAGE, "true");
      expect((await runtime.run({ text: "" })).reason).toBe("completed");
      expect(swept).toEqual([later]);
      expect(docker("ps", "--all", "--quiet", "--no-trunc", "--filter", `id=${other}`)).toBe(other);
    } finally {
      for (const id of [leftover, other, later].filter((i) => i !== "")) execFileSync("docker", ["rm", "--force", id], { stdio: "ignore" });
    }
  });
});
