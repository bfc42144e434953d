// The warm pool's head start with the real engine, the real claude CLI and the egress proxy in front
// of the stand-in model: under `model` a member starts claude ahead with a per-Run token of its own
// that the proxy refuses until the Run that claims the member registers it, and again once it ends.
// A member's container holds neither the real key nor that token; a claude Run with the runner's
// argv is handed the running claude; one with another argv is served warm by a fresh claude.

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, startEgressGateway, type AgentRunner, type EgressGateway } from "../index.js";
import { POOL_LABEL } from "../subpaths/runtime.js";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";
import { AGENT_IMAGE, startStandInModel, type RunningStandIn } from "../../test/support/stand-in-container.js";

const sh = promisify(execFile);
const OWNER = `agentcage-head-start-${randomBytes(3).toString("hex")}`;
const CLAUDE_KEY = `sk-ant-api03-head-start-${randomBytes(16).toString("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let upstreamNetwork = "";
let standIn: RunningStandIn;
let gateway: EgressGateway;
let dir = "";
let runner: AgentRunner;

async function docker(...args: string[]): Promise<string> {
  return (await sh("docker", args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

beforeAll(async () => {
  upstreamNetwork = `agentcage-e2e-upstream-${randomBytes(3).toString("hex")}`;
  await docker("network", "create", "--label", `${OWNER}=upstream`, upstreamNetwork);
  standIn = await startStandInModel("plain", { networks: [upstreamNetwork] });
  dir = await mkdtemp(join(tmpdir(), "agentcage-head-start-"));
  await mkdir(join(dir, "control"), { mode: 0o700 });
  await mkdir(join(dir, "runs"), { mode: 0o700 });
  gateway = await startEgressGateway({ runtimeDir: join(dir, "control"), networks: [upstreamNetwork], upstreams: { anthropic: standIn.networkUrl as string } });
  runner = createAgentRunner({
    image: AGENT_IMAGE,
    apiRetries: 0,
    owner: OWNER,
    environment: { ANTHROPIC_API_KEY: CLAUDE_KEY },
    networkPolicy: "model",
    egress: gateway,
    staging: { runtimeDir: join(dir, "runs") },
    pool: { size: 1 },
  });
}, 180_000);

afterAll(async () => {
  await runner?.close();
  await gateway?.close();
  await standIn?.stop();
  if (upstreamNetwork !== "") await docker("network", "rm", upstreamNetwork).catch(() => undefined);
  if (dir !== "") await rm(dir, { recursive: true, force: true });
  expect(await docker("ps", "-aq", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
  expect(await docker("network", "ls", "-q", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
});

async function readyMember(): Promise<string> {
  for (let i = 0; i < 600; i++) {
    if ((runner.pool()?.ready ?? 0) >= 1) {
      const ids = (
        await docker("ps", "-q", "--filter", `label=${POOL_LABEL}`, "--filter", `label=agentcage.owner=${OWNER}`, "--filter", "status=running")
      ).split("\n");
      if (ids.length === 1 && ids[0] !== "") return ids[0] as string;
    }
    await sleep(100);
  }
  throw new Error(`no member was ready: ${JSON.stringify(runner.pool())}`);
}

/** Inside the member, as its agent: the token its running claude holds, and what the proxy answers a model call made with it. */
async function probeHeadStart(member: string): Promise<{ token: string; status: string }> {
  const script = [
    "for p in /proc/[0-9]*; do tr '\\0' '\\n' <$p/cmdline 2>/dev/null | grep -qx -- --print || continue",
    "  token=$(tr '\\0' '\\n' <$p/environ | sed -n 's/^ANTHROPIC_API_KEY=//p'); [ -n \"$token\" ] && break; done",
    'echo "$token"',
    `exec 3<>/dev/tcp/${gateway.alias}/${gateway.port}`,
    "printf 'POST /v1/messages/count_tokens HTTP/1.1\\r\\nHost: model\\r\\nx-api-key: %s\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\n{}' \"$token\" >&3",
    "head -1 <&3",
  ].join("\n");
  const [token = "", status = ""] = (await docker("exec", member, "bash", "-c", script)).split("\n");
  return { token, status };
}

describe('the warm pool\'s head start under networkPolicy "model"', () => {
  it("starts claude ahead with a token of its own that the proxy refuses until the Run is claimed, and holds no secret in its container", async () => {
    const member = await readyMember();
    const inspected = await docker("inspect", member);
    expect(inspected).not.toContain(CLAUDE_KEY);
    expect(inspected).not.toContain("agentcage-run-");
    expect(inspected).not.toContain("--print");
    const { token, status } = await probeHeadStart(member);
    expect(token).toMatch(/^agentcage-run-[A-Za-z0-9_-]{43}$/);
    expect(status).toMatch(/^HTTP\/1\.1 401/);
    // Longer than claude waits for a text prompt on stdin (3 s): its prompt comes as a stream-json message, waited for however late.
    await sleep(4000);

    const outcome = await runner.run({ cli: "claude", timeoutSeconds: 120 }, "What is the capital of France?");
    expect(outcome, JSON.stringify(outcome)).toMatchObject({
      ok: true,
      warm: true,
      result: { text: PLAIN_ANSWER },
      network: { policy: "model", meter: { turns: 1 } },
    });
    expect(runner.pool()?.headStarts).toEqual({ used: 1, wasted: 0 });
    expect(JSON.stringify(outcome)).not.toContain(token);
    // Revoked with the Run: the proxy knows the token no more.
    expect(await gateway.meter(outcome.runId)).toBeUndefined();
  }, 180_000);

  it("serves a claude Run of another argv warm, its head start killed, and learns that argv for the next member", async () => {
    await readyMember();
    const first = await runner.run({ cli: "claude", maxTurns: 3, timeoutSeconds: 120 }, "What is the capital of France?");
    expect(first, JSON.stringify(first)).toMatchObject({ ok: true, warm: true, result: { text: PLAIN_ANSWER } });
    expect(runner.pool()?.headStarts).toMatchObject({ wasted: 1 });
    // The member made after that claim started claude with maxTurns 3: the same request now takes it.
    await sleep(500);
    await readyMember();
    const used = runner.pool()?.headStarts?.used ?? 0;
    const second = await runner.run({ cli: "claude", maxTurns: 3, timeoutSeconds: 120 }, "What is the capital of France?");
    expect(second, JSON.stringify(second)).toMatchObject({ ok: true, warm: true, result: { text: PLAIN_ANSWER } });
    expect(runner.pool()?.headStarts?.used).toBe(used + 1);
  }, 180_000);

  it("never learns an argv that carries a caller's text", async () => {
    await readyMember();
    const told = await runner.run(
      { cli: "claude", maxTurns: 3, systemPrompt: "caller-secret-instructions", timeoutSeconds: 120 },
      "What is the capital of France?",
    );
    expect(told, JSON.stringify(told)).toMatchObject({ ok: true, warm: true });
    await sleep(500);
    const member = await readyMember();
    const argv = await docker("exec", member, "bash", "-c", "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '");
    expect(argv).toContain("--print");
    expect(argv).not.toContain("caller-secret-instructions");
  }, 180_000);
});
