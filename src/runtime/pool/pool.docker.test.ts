// Runs against the real engine and the offline test image: the warm pool. A member holds nothing of
// any Run before its claim; a claimed member serves its Run with the Run's argv, environment, stdin
// and inputs; no Run's secret or inputs reach another member; a member killed or idle is replaced
// and leaves nothing; what the pool cannot serve goes cold and is counted; close() leaves nothing.

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentContainerRuntime, type AgentContainerRuntime } from "../../index.js";
import { POOL_LABEL, type PoolOptions } from "../../subpaths/runtime.js";
import { TEST_IMAGE, capturingLogger, collectStdout, docker, type Collected } from "../../../test/support/engine.js";
import { liveRuns } from "../live-runs.js";

const SECRET = "sk-declared-0123456789abcdef";
const RUN_SECRET = "per-run-token-fedcba9876543210";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let runtimeDir: string;
let inputs: string;
const runtimes: Array<AgentContainerRuntime<Collected>> = [];

beforeAll(async () => {
  runtimeDir = await mkdtemp(path.join(tmpdir(), "agentcage-pool-"));
  inputs = await mkdtemp(path.join(tmpdir(), "agentcage-pool-in-"));
  await writeFile(path.join(inputs, "brief.txt"), "the caller's brief\n");
});

afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  await rm(runtimeDir, { recursive: true, force: true });
  await rm(inputs, { recursive: true, force: true });
});

/** A staged runtime with a pool, whose Runs run `script` with the prompt on stdin. */
function pooled(
  pool: PoolOptions,
  script = 'echo "argv:$*"; echo "token:${RUN_TOKEN#per-run-} declared:${DECLARED#sk-}"; ls /work; cat /work/brief.txt 2>&1; cat',
) {
  const runtime = createAgentContainerRuntime<Collected>({
    container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir }, env: { DECLARED: SECRET } },
    run: (prompt) => ({ args: ["sh", "-c", script, "agent", "first word", "it's"], stdin: prompt.text, outcome: collectStdout }),
    pool,
  });
  runtimes.push(runtime);
  return runtime;
}

async function untilReady(runtime: AgentContainerRuntime<Collected>, ready: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((runtime.pool()?.ready ?? 0) >= ready) return;
    await sleep(50);
  }
  throw new Error(`the pool did not have ${ready} ready within 30 s: ${JSON.stringify(runtime.pool())}`);
}

function membersOf(runtime: AgentContainerRuntime<Collected>): string[] {
  return docker("ps", "--all", "--quiet", "--filter", `label=${POOL_LABEL}=${runtime.session}`)
    .split("\n")
    .filter((line) => line !== "");
}

type Inspected = { Config: { Env: string[]; Cmd: string[]; Labels: Record<string, string> }; Mounts: Array<{ Source: string }> };
const inspect = (id: string): Inspected => (JSON.parse(docker("inspect", id)) as Inspected[])[0] as Inspected;

describe("the warm pool against the real engine", () => {
  it("holds nothing of any Run before a claim, then serves a Run warm with its argv, environment, stdin and inputs", async () => {
    const runtime = pooled({ size: 2 });
    await untilReady(runtime, 2);
    const before = membersOf(runtime);
    expect(before).toHaveLength(2);
    for (const id of before) {
      const seen = JSON.stringify(inspect(id));
      expect(seen).not.toContain(SECRET);
      expect(seen).not.toContain("first word");
      // Its work/ on disk is empty but for out/.
      const work = inspect(id)
        .Mounts.map((m) => m.Source)
        .find((source) => source.endsWith("/work"));
      expect(await readdir(work as string)).toEqual(["out"]);
    }

    const outcome = await runtime.run({ text: "the prompt\nbytes" }, { env: { RUN_TOKEN: RUN_SECRET }, inputs: { directory: inputs } });
    expect(outcome).toMatchObject({ ok: true, reason: "completed", warm: true, exit: { code: 0 } });
    const said = outcome.result?.bytes.toString() ?? "";
    expect(said).toContain("argv:first word it's");
    // Printed cut short: the whole values are masked wherever the Run's output is kept.
    expect(said).toContain(`token:${RUN_SECRET.replace("per-run-", "")} declared:${SECRET.replace("sk-", "")}`);
    expect(said).toContain("brief.txt\nout\n");
    expect(said).toContain("the caller's brief\nthe prompt\nbytes");

    // The other member, still waiting, never saw the Run: not its token, not its inputs.
    const others = membersOf(runtime).filter((id) => docker("inspect", "--format", "{{.State.Running}}", id) === "true");
    expect(others.length).toBeGreaterThan(0);
    for (const id of others) {
      expect(JSON.stringify(inspect(id))).not.toContain(RUN_SECRET);
      const work = inspect(id)
        .Mounts.map((m) => m.Source)
        .find((source) => source.endsWith("/work"));
      expect(await readdir(work as string)).toEqual(["out"]);
    }
    expect(runtime.pool()).toMatchObject({ claimed: 1, cold: {} });
    expect(runtime.pool()?.claimLatencyMs.count).toBe(1);
  }, 120_000);

  it("serves the next Run on another member, which shows nothing of the one before", async () => {
    const runtime = pooled({ size: 1 }, "ls /work; cat /work/brief.txt 2>&1; echo token:${RUN_TOKEN:-none}");
    await untilReady(runtime, 1);
    const first = await runtime.run({ text: "" }, { env: { RUN_TOKEN: RUN_SECRET }, inputs: { directory: inputs } });
    expect(first).toMatchObject({ ok: true, warm: true });
    await untilReady(runtime, 1);
    const second = await runtime.run({ text: "" });
    expect(second).toMatchObject({ ok: true, warm: true });
    const said = second.result?.bytes.toString() ?? "";
    expect(said).not.toContain("the caller's brief");
    expect(said).toContain("token:none");
  }, 120_000);

  it("loses no member to a sweep of its own process while the members are being made", async () => {
    const runtime = pooled({ size: 2 });
    // The start-up sweep of a service comes right after its runners are made, while their members are.
    await runtime.sweep();
    await untilReady(runtime, 2);
    expect(runtime.pool()).toMatchObject({ failures: 0, ready: 2 });
  }, 120_000);

  it("replaces a member killed before its claim, and the killed one leaves nothing", async () => {
    const runtime = pooled({ size: 1 });
    await untilReady(runtime, 1);
    const [killed] = membersOf(runtime);
    const name = docker("inspect", "--format", "{{.Name}}", killed as string).replace(/^\//, "");
    const memberId = name.replace(/^agentcage-/, "");
    docker("kill", killed as string);
    for (let i = 0; i < 600 && (runtime.pool()?.replaced ?? 0) < 1; i++) await sleep(50);
    await untilReady(runtime, 1);
    expect(runtime.pool()?.replaced).toBe(1);
    for (let i = 0; i < 200 && membersOf(runtime).includes(killed as string); i++) await sleep(50);
    expect(membersOf(runtime)).not.toContain(killed);
    expect(await readdir(runtimeDir)).not.toContain(memberId);
    const outcome = await runtime.run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, warm: true });
  }, 120_000);

  it("replaces a member idle past maxIdleSeconds", async () => {
    const runtime = pooled({ size: 1, maxIdleSeconds: 1 });
    await untilReady(runtime, 1);
    const [first] = membersOf(runtime);
    for (let i = 0; i < 600 && (runtime.pool()?.replaced ?? 0) < 1; i++) await sleep(50);
    expect(runtime.pool()?.replaced).toBeGreaterThanOrEqual(1);
    await untilReady(runtime, 1);
    for (let i = 0; i < 200 && membersOf(runtime).includes(first as string); i++) await sleep(50);
    expect(membersOf(runtime)).not.toContain(first);
  }, 120_000);

  it("serves cold, and counts why, what a member cannot serve", async () => {
    const runtime = pooled({ size: 1 });
    await untilReady(runtime, 1);
    const withFile = await runtime.run({ text: "" }, { secretFiles: [{ agentPath: "/tmp/login.json", content: "{}" }] });
    expect(withFile).toMatchObject({ ok: true, warm: false });
    const taken = await runtime.run({ text: "" });
    expect(taken).toMatchObject({ ok: true, warm: true });
    const empty = await runtime.run({ text: "" });
    expect(empty.warm).toBeDefined();
    expect(runtime.pool()?.cold["secret files"]).toBe(1);
  }, 120_000);

  it("ends a warm Run that is cancelled, its container gone", async () => {
    const runtime = pooled({ size: 1 }, "sleep 60");
    await untilReady(runtime, 1);
    const controller = new AbortController();
    const running = runtime.run({ text: "" }, { signal: controller.signal });
    await sleep(1500);
    controller.abort();
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, reason: "cancelled", warm: true });
  }, 120_000);

  it("binds a Run's network peer to the member's network at the claim", async () => {
    const runtime = pooled({ size: 1, network: { kind: "internal" } }, "echo up");
    await untilReady(runtime, 1);
    const told: string[][] = [];
    const outcome = await runtime.run({ text: "" }, { network: { kind: "internal", onOpened: async ({ subnets }) => void told.push([...subnets]) } });
    expect(outcome).toMatchObject({ ok: true, warm: true });
    expect(told).toHaveLength(1);
    expect(told[0]?.[0]).toMatch(/^10\.213\./);
    const cold = await runtime.run({ text: "" }, { network: { kind: "open" } });
    expect(cold.warm).toBe(false);
    expect(runtime.pool()?.cold["another network"]).toBe(1);
  }, 120_000);

  it("gives a warm Run's Outcome before its directory is removed, the Run live for sweeps until it is, and close() waits for it", async () => {
    const runtime = pooled({ size: 1 });
    await untilReady(runtime, 1);
    const outcome = await runtime.run({ text: "" });
    expect(outcome).toMatchObject({ ok: true, warm: true });
    // Removed after the Outcome, in the background: until then no sweep of this process takes it.
    expect(liveRuns.has(outcome.runId)).toBe(true);
    await runtime.close();
    expect(liveRuns.has(outcome.runId)).toBe(false);
    expect(await readdir(runtimeDir)).not.toContain(outcome.runId);
  }, 120_000);

  it("ends a warm Run on its own network with the agent's exit code, and its container goes after the Outcome without a close()", async () => {
    const runtime = pooled({ size: 1, network: { kind: "internal" } }, "echo up; exit 3");
    await untilReady(runtime, 1);
    const [served] = membersOf(runtime);
    const outcome = await runtime.run({ text: "" }, { network: { kind: "internal" } });
    expect(outcome).toMatchObject({ ok: true, warm: true, exit: { code: 3, oomKilled: false } });
    // Removed in the background: within a bound far above an idle machine's (about a second).
    for (let i = 0; i < 600 && membersOf(runtime).includes(served as string); i++) await sleep(50);
    expect(membersOf(runtime)).not.toContain(served);
  }, 120_000);

  it("leaves no member, network or directory after close()", async () => {
    const runtime = pooled({ size: 2, network: { kind: "internal" } });
    await untilReady(runtime, 2);
    await runtime.run({ text: "" }, { network: { kind: "internal" } });
    await runtime.close();
    expect(membersOf(runtime)).toEqual([]);
    expect(docker("network", "ls", "--quiet", "--filter", `label=${POOL_LABEL}=${runtime.session}`)).toBe("");
    expect(docker("ps", "--all", "--quiet", "--filter", `label=agentcage.session=${runtime.session}`)).toBe("");
    expect(docker("network", "ls", "--quiet", "--filter", `label=agentcage.session=${runtime.session}`)).toBe("");
    // What is left on disk is the Runs' records (kept by keepRuns only) and no member's directory.
    for (const name of await readdir(runtimeDir)) {
      const info = JSON.parse(await readFile(path.join(runtimeDir, name, "run.json"), "utf8").catch(() => "{}")) as { ownership?: { session?: string } };
      expect(info.ownership?.session).not.toBe(runtime.session);
    }
  }, 120_000);
});

describe("a warm pool whose members start the agent ahead (head start)", () => {
  const AGENT = 'read line; echo "got:$line premade:${PREMADE#premade-}"';
  let made = 0;
  /** A runtime whose members start `sh -c AGENT` ahead with a premade value of their own; its Runs run `script`. */
  function headStarted(script = AGENT, pool: Partial<PoolOptions> = {}) {
    const runtime = createAgentContainerRuntime<Collected>({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir } },
      run: (prompt) => ({ args: ["sh", "-c", script, "hs-marker"], stdin: prompt.text, outcome: collectStdout }),
      pool: { size: 1, headStart: () => ({ words: ["sh", "-c", AGENT, "hs-marker"], env: { PREMADE: `premade-member-${++made}-0123456789` } }), ...pool },
    });
    runtimes.push(runtime);
    return runtime;
  }
  /** The Run takes what its member offers, as the runner takes a member's token; a Run given none makes its own. */
  const takeOffered = async (offered: Readonly<Record<string, string>> | undefined) => offered ?? { PREMADE: "premade-cold-0123456789" };

  it("holds no premade value and no Run's word in its container, and hands a Run with its plan the running agent", async () => {
    const runtime = headStarted();
    await untilReady(runtime, 1);
    const [member] = membersOf(runtime);
    const seen = JSON.stringify(inspect(member as string));
    expect(seen).not.toContain("premade-member");
    expect(seen).not.toContain("hs-marker");
    const outcome = await runtime.run({ text: "the prompt\n" }, { envAtClaim: takeOffered });
    expect(outcome).toMatchObject({ ok: true, warm: true, exit: { code: 0 } });
    // The premade value is the Run's secret now: printed whole, it is masked.
    expect(outcome.result?.bytes.toString()).toMatch(/^got:the prompt premade:member-\d+-0123456789\n$/);
    expect(runtime.pool()?.headStarts).toEqual({ used: 1, wasted: 0 });
  }, 120_000);

  it("kills a head start a Run cannot take (another plan), and serves that Run warm with its own words and environment", async () => {
    const other =
      'n=0; for f in /proc/[0-9]*/cmdline; do tr "\\0" " " <"$f" 2>/dev/null | grep -q "read lin[e]" && n=$((n+1)); done; echo "head starts left:$n token:${RUN_TOKEN#per-run-} premade:${PREMADE:-none}"';
    const runtime = headStarted(other);
    await untilReady(runtime, 1);
    const outcome = await runtime.run({ text: "" }, { env: { RUN_TOKEN: RUN_SECRET } });
    expect(outcome).toMatchObject({ ok: true, warm: true });
    expect(outcome.result?.bytes.toString()).toBe(`head starts left:0 token:${RUN_SECRET.replace("per-run-", "")} premade:none\n`);
    expect(runtime.pool()?.headStarts).toEqual({ used: 0, wasted: 1 });
  }, 120_000);

  it("kills a head start whose environment is not the Run's, even with the same words", async () => {
    const runtime = headStarted();
    await untilReady(runtime, 1);
    const outcome = await runtime.run({ text: "x\n" }, { envAtClaim: async () => ({ PREMADE: "premade-its-own-0123456789" }) });
    expect(outcome).toMatchObject({ ok: true, warm: true });
    expect(outcome.result?.bytes.toString()).toBe("got:x premade:its-own-0123456789\n");
    expect(runtime.pool()?.headStarts).toEqual({ used: 0, wasted: 1 });
  }, 120_000);

  it("ends a Run whose envAtClaim rejects unavailable, before its agent gets anything", async () => {
    const runtime = headStarted();
    await untilReady(runtime, 1);
    const outcome = await runtime.run(
      { text: "x\n" },
      {
        envAtClaim: async () => {
          throw new Error("the egress proxy did not take the Run");
        },
      },
    );
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: "the egress proxy did not take the Run" });
  }, 120_000);

  it("leaves nothing of a head-start member killed before its claim", async () => {
    const runtime = headStarted();
    await untilReady(runtime, 1);
    const [killed] = membersOf(runtime);
    const memberId = docker("inspect", "--format", "{{.Name}}", killed as string).replace(/^\/agentcage-/, "");
    docker("kill", killed as string);
    for (let i = 0; i < 600 && (runtime.pool()?.replaced ?? 0) < 1; i++) await sleep(50);
    await untilReady(runtime, 1);
    for (let i = 0; i < 200 && membersOf(runtime).includes(killed as string); i++) await sleep(50);
    expect(membersOf(runtime)).not.toContain(killed);
    expect(await readdir(runtimeDir)).not.toContain(memberId);
    expect(await runtime.run({ text: "y\n" }, { envAtClaim: takeOffered })).toMatchObject({ ok: true, warm: true });
    expect(runtime.pool()?.headStarts).toEqual({ used: 1, wasted: 0 });
  }, 120_000);

  it("ends a head start that outlives its timeout as timeout, the same end as cold", async () => {
    const slow = "read line; sleep 60";
    const runtime = createAgentContainerRuntime<Collected>({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir } },
      run: (prompt) => ({ args: ["sh", "-c", slow], stdin: prompt.text, outcome: collectStdout }),
      pool: { size: 1, headStart: () => ({ words: ["sh", "-c", slow], env: {} }) },
    });
    runtimes.push(runtime);
    await untilReady(runtime, 1);
    const warm = await runtime.run({ text: "x\n" }, { timeoutSeconds: 2 });
    const cold = await runtime.run({ text: "x\n" }, { timeoutSeconds: 2, secretFiles: [{ agentPath: "/tmp/cold.json", content: "{}" }] });
    expect(warm).toMatchObject({ ok: false, reason: "timeout", warm: true });
    expect(cold).toMatchObject({ ok: false, reason: "timeout", warm: false });
    expect(runtime.pool()?.headStarts).toEqual({ used: 1, wasted: 0 });
    expect(warm.durationMs).toBeLessThan(15_000);
  }, 120_000);
});

describe("a warm pool whose members keep stopping before any claim", () => {
  it("makes them again ever more slowly, not as fast as the engine allows", async () => {
    const runtime = createAgentContainerRuntime<Collected>({
      container: { image: TEST_IMAGE, logger: capturingLogger().logger, staging: { runtimeDir } },
      run: (prompt) => ({ args: ["cat"], stdin: prompt.text, outcome: collectStdout }),
      // A head start that ends at once ends its member (the launcher's watch), again and again.
      pool: { size: 1, headStart: () => ({ words: ["sh", "-c", "exit 1"], env: {} }) },
    });
    runtimes.push(runtime);
    await sleep(30_000);
    // Made back to back, a member made and dead every second or two comes to 15 or more in 30 s;
    // backing off (0.5, 1, 2, 4, 8 s) between them, to 6 or fewer.
    const replaced = runtime.pool()?.replaced ?? 0;
    expect(replaced, `replaced ${replaced}`).toBeGreaterThanOrEqual(2);
    expect(replaced, `replaced ${replaced}`).toBeLessThanOrEqual(7);
  }, 90_000);
});
