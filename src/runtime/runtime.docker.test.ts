// Runs against the real engine and the offline test image: what arrives, what comes back, how
// each end of a Run is named, and that no container of a Run survives it.

import { describe, expect, it } from "vitest";
import { createAgentContainerRuntime, type AgentContainer, type ReaderVerdict, type RunPlan } from "../index.js";
import { TEST_IMAGE, capturingLogger, collectStdout, containersOfRun, expectOkLine, type Collected } from "../../test/support/engine.js";

const quiet = capturingLogger().logger;

function shRuntime<R extends ReaderVerdict>(script: string, outcome: RunPlan<R>["outcome"], container: Partial<AgentContainer> = {}) {
  return createAgentContainerRuntime<R>({
    container: { image: TEST_IMAGE, logger: quiet, ...container },
    run: (prompt) => ({ args: ["sh", "-c", script], stdin: prompt.text, outcome }),
  });
}

describe("a Run against the real engine", () => {
  it("delivers a 1 MiB prompt on stdin byte-exact and returns stdout byte-exact", async () => {
    const prompt = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < prompt.length; i++) prompt[i] = (i * 7 + (i >> 8)) & 0xff;
    const runtime = createAgentContainerRuntime<Collected>({
      container: { image: TEST_IMAGE, logger: quiet },
      run: () => ({ args: ["cat"], stdin: prompt, outcome: collectStdout }),
    });
    const outcome = await runtime.run({ text: "" });
    expect(outcome.reason).toBe("completed");
    expect(outcome.result?.bytes.equals(prompt)).toBe(true);
    expect(outcome.stdoutBytes).toBe(prompt.length);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("keeps text prompts byte-exact, non-ASCII included", async () => {
    const text = "héllo wörld\u2028 — 日本語\n\u0000end";
    const outcome = await shRuntime("cat", collectStdout).run({ text });
    expect(outcome.result?.bytes.toString("utf8")).toBe(text);
  });

  it("separates stderr from stdout", async () => {
    const outcome = await shRuntime("echo out; echo err >&2", collectStdout).run({ text: "" });
    expect(outcome.result?.bytes.toString()).toBe("out\n");
    expect(outcome.stderr).toBe("err\n");
  });

  it("names exit codes 0 and 1 by what the reader said, and attaches the exit facts", async () => {
    const zero = await shRuntime("echo ok", expectOkLine).run({ text: "" });
    expect(zero).toMatchObject({ ok: true, reason: "completed", exit: { code: 0, oomKilled: false } });

    const one = await shRuntime("echo broken >&2; exit 1", expectOkLine).run({ text: "" });
    expect(one).toMatchObject({ ok: false, reason: "failed", exit: { code: 1, oomKilled: false } });
    expect(one.error).toMatch(/^no "ok" line .*; the agent exited with code 1; stderr: broken$/);
    expect(containersOfRun(one.runId)).toEqual([]);
  });

  it("keeps the reader's ok over a non-zero exit, and logs the contradiction", async () => {
    const { logger, lines } = capturingLogger();
    const outcome = await shRuntime("echo ok; exit 3", expectOkLine, { logger }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 3 } });
    const warning = lines.map((l) => JSON.parse(l) as { level: number; msg: string; runId: string }).find((l) => l.level === 40);
    expect(warning).toMatchObject({ runId: outcome.runId, msg: "the reader said ok but the agent exited non-zero" });
  });

  it("ends as unavailable when the image is missing (the CLI's 125)", async () => {
    const runtime = createAgentContainerRuntime({
      container: { image: "agentcage-no-such-image:never", logger: quiet },
      run: () => ({ args: ["true"], stdin: "", outcome: collectStdout }),
    });
    const outcome = await runtime.run({ text: "" });
    expect(outcome.reason).toBe("unavailable");
    expect(outcome.error).toContain('image "agentcage-no-such-image:never" is not on this engine');
    expect(outcome.exit).toBeUndefined();
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("ends as unavailable when the command is not executable (126) or not found (127)", async () => {
    const notExecutable = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet },
      run: () => ({ args: ["/etc/passwd"], stdin: "", outcome: expectOkLine }),
    }).run({ text: "" });
    expect(notExecutable).toMatchObject({ reason: "unavailable", exit: { code: 126 } });

    const notFound = await createAgentContainerRuntime({
      container: { image: TEST_IMAGE, logger: quiet },
      run: () => ({ args: ["no-such-agent"], stdin: "", outcome: expectOkLine }),
    }).run({ text: "" });
    expect(notFound).toMatchObject({ reason: "unavailable", exit: { code: 127 } });
    expect(notFound.error).toContain("no-such-agent");
    expect(containersOfRun(notFound.runId)).toEqual([]);
  });
});

describe("the container a Run gets", () => {
  const probe = [
    "grep -E '^(CapEff|NoNewPrivs):' /proc/self/status",
    'echo "uid=$(id -u)"',
    "touch /rootfs-probe 2>/dev/null && echo root=writable || echo root=readonly",
    "touch /tmp/probe && echo tmp=writable || echo tmp=readonly",
    "grep ' /tmp ' /proc/mounts",
    "ulimit -c",
  ].join("; ");

  it("has no capabilities, no new privileges, a non-root uid, a read-only root and a writable /tmp", async () => {
    const outcome = await shRuntime(probe, collectStdout).run({ text: "" });
    const lines = outcome.result?.bytes.toString().split("\n") ?? [];
    expect(lines).toContain("CapEff:\t0000000000000000");
    expect(lines).toContain("NoNewPrivs:\t1");
    expect(lines).toContain("uid=10002");
    expect(lines).toContain("root=readonly");
    expect(lines).toContain("tmp=writable");
    expect(lines.find((l) => l.includes(" /tmp "))).toMatch(/tmpfs \/tmp tmpfs rw,nosuid,nodev.*size=262144k/);
    expect(lines).toContain("0");
  });

  it("stops a fork loop at the pids limit", async () => {
    // echo is a builtin: each line is printed only after a fork succeeded; a failed fork ends sh.
    const script = "n=0; while [ $n -lt 64 ]; do sleep 30 & n=$((n+1)); echo started=$n; done";
    const outcome = await shRuntime(script, collectStdout, { limits: { pids: 16 } }).run({ text: "" });
    expect(outcome.stderr).toMatch(/can't fork/);
    const started = outcome.result?.bytes.toString().trim().split("\n").at(-1);
    expect(started).toMatch(/^started=\d+$/);
    expect(Number(started?.slice("started=".length))).toBeLessThan(16);
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("ends an allocation over the memory limit as oom", async () => {
    const script = "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived";
    const outcome = await shRuntime(script, expectOkLine, { limits: { memoryBytes: 32 * 1024 * 1024 } }).run({ text: "" });
    expect(outcome).toMatchObject({ ok: false, reason: "oom", exit: { oomKilled: true } });
    expect(outcome.error).toContain("out of memory");
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });
});
