// Slow is not dead, for the egress proxy, with the real engine and the real claude CLI: a proxy
// paused mid-Run (its container frozen, its control socket silent) for longer than any reading of
// its meter waits is a slow proxy, and the Run completes once it is thawed, its answer intact; a
// proxy killed mid-Run is a gone one, and the Run ends `unavailable` at once, naming it.

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, startEgressGateway, type AgentEvent, type EgressGateway } from "../index.js";
import { readLoadWith } from "../liveness/index.js";
import { STAND_IN_ENVIRONMENT } from "../stand-in/index.js";
import { TOOL_FINAL_ANSWER } from "../../test/stand-in/index.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";

const sh = promisify(execFile);
const OWNER = `agentcage-proxy-liveness-${randomBytes(3).toString("hex")}`;
/** Longer than a meter reading's old bound and its misses together (2 × 1 s + 2 s), several times over. */
const PAUSE_MS = 12_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir = "";
let gateway: EgressGateway | undefined;

async function docker(...args: string[]): Promise<string> {
  return (await sh("docker", args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

// The bounds as on an idle machine, the shortest they are, whatever else this one is doing: the
// pause must outlast them for the test to mean anything.
let realLoad: () => void = () => undefined;
beforeAll(async () => {
  realLoad = readLoadWith(() => ({ runnable: 0, average: 0, cores: 2 }));
  dir = await mkdtemp(join(tmpdir(), "agentcage-proxy-liveness-"));
});

afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

afterAll(async () => {
  realLoad();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
  expect(await docker("ps", "-aq", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
  expect(await docker("network", "ls", "-q", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
});

/** The Run's agent container, once it runs. */
async function agentRunning(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await docker("ps", "-q", "--filter", `label=agentcage.owner=${OWNER}`, "--filter", "status=running")) === "") {
    if (Date.now() > deadline) throw new Error("no agent container came up");
    await sleep(100);
  }
}

/**
 * One claude Run under `model` with `prompt`, the stand-in behind a proxy of the test's own (as
 * `serve --stand-in` has it); `onceRunning` is done to the proxy as soon as the agent's container runs.
 */
async function runWith(prompt: string, onceRunning: (proxy: EgressGateway) => Promise<void>) {
  const control = await mkdtemp(join(dir, "control-"));
  const proxy = await startEgressGateway({ runtimeDir: control, standIn: true });
  gateway = proxy;
  const runner = createAgentRunner({
    image: AGENT_IMAGE,
    apiRetries: 0,
    owner: OWNER,
    environment: STAND_IN_ENVIRONMENT,
    networkPolicy: "model",
    egress: proxy,
    staging: { runtimeDir: await mkdtemp(join(dir, "runs-")) },
  });
  const events: AgentEvent[] = [];
  try {
    const running = runner.run({ cli: "claude", timeoutSeconds: 600 }, prompt, { onEvent: (event) => events.push(event) });
    const acted = agentRunning().then(() => onceRunning(proxy));
    const outcome = await running;
    await acted;
    // What a readiness check then finds: the runner's one proxy, gone or not, on its board.
    await runner.check();
    return { outcome, events, degraded: runner.degradations.list() };
  } finally {
    await runner.close();
  }
}

describe("a Run under model, its egress proxy slow or gone", () => {
  it("completes with its answer when the proxy is paused mid-Run for longer than any reading waits, then thawed", async () => {
    let pausedAt = 0;
    const { outcome, events, degraded } = await runWith("[stand-in:tool_write_bash] write the answer", async (proxy) => {
      await docker("pause", proxy.container);
      pausedAt = Date.now();
      await sleep(PAUSE_MS);
      await docker("unpause", proxy.container);
    });
    expect(pausedAt, JSON.stringify({ outcome, events })).toBeGreaterThan(0);
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({ ok: true, reason: "completed" });
    expect(outcome.result?.text).toBe(TOOL_FINAL_ANSWER);
    // The slow readings were told, not taken for an end.
    expect(events.some((event) => event.type === "egress_slow")).toBe(true);
    expect(degraded).toEqual([]);
  }, 240_000);

  it("ends unavailable promptly, naming the proxy, when the proxy is killed mid-Run", async () => {
    let killedAt = 0;
    const started = Date.now();
    const { outcome, degraded } = await runWith("Wait for the model. [stand-in:hang]", async (proxy) => {
      killedAt = Date.now();
      await docker("kill", proxy.container);
    });
    expect(killedAt).toBeGreaterThan(0);
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toMatch(/the egress proxy went away: it .*(not running|refuses)/);
    // Promptly: well inside the Run's own timeout, in a few of the meter's seconds (3x an idle machine's).
    expect(Date.now() - killedAt).toBeLessThan(3 * 10_000);
    expect(Date.now() - started).toBeLessThan(600_000);
    // Every later Run would end the same way: the service says so (readyz, metrics, the log) until a proxy runs again.
    expect(degraded).toEqual([expect.objectContaining({ kind: "egress-proxy", stopsRuns: true, reason: expect.stringMatching(/is not running|refuses/) })]);
  }, 240_000);
});
