// Claude's API key under networkPolicy "none", with the real engine, the real claude CLI and the
// stand-in model: the key reaches claude only through its key helper, as a tmpfs secret the Run's
// launcher writes, so a pool member starts claude ahead holding no key, and no container, warm or
// cold, has it in its create body, any process's argv or environment, the Run's record or Outcome.

import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentRunner, type AgentRunner } from "../index.js";
import { POOL_LABEL } from "../subpaths/runtime.js";
import { PLAIN_ANSWER } from "../../test/stand-in/index.js";
import { AGENT_IMAGE, startStandInModel, type RunningStandIn } from "../../test/support/stand-in-container.js";

const sh = promisify(execFile);
const OWNER = `agentcage-key-helper-${randomBytes(3).toString("hex")}`;
const CLAUDE_KEY = `sk-ant-api03-key-helper-${randomBytes(16).toString("hex")}`;
const KEY_SHA256 = createHash("sha256").update(CLAUDE_KEY).digest("hex");
const PROMPT = "What is the capital of France?";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let standIn: RunningStandIn;
let dir = "";
let warm: AgentRunner;
let cold: AgentRunner;

async function docker(...args: string[]): Promise<string> {
  return (await sh("docker", args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

beforeAll(async () => {
  standIn = await startStandInModel("plain");
  dir = await mkdtemp(join(tmpdir(), "agentcage-key-helper-"));
  const options = {
    image: AGENT_IMAGE,
    apiRetries: 0,
    owner: OWNER,
    environment: { ANTHROPIC_API_KEY: CLAUDE_KEY },
    networks: [standIn.network],
    anthropicBaseUrl: standIn.baseUrl,
  } as const;
  warm = createAgentRunner({ ...options, staging: { runtimeDir: join(dir, "warm") }, pool: { size: 1 } });
  cold = createAgentRunner({ ...options, staging: { runtimeDir: join(dir, "cold") } });
}, 180_000);

afterAll(async () => {
  await warm?.close();
  await cold?.close();
  await standIn?.stop();
  if (dir !== "") await rm(dir, { recursive: true, force: true });
  expect(await docker("ps", "-aq", "--filter", `label=agentcage.owner=${OWNER}`)).toBe("");
});

async function readyMember(): Promise<string> {
  for (let i = 0; i < 600; i++) {
    if ((warm.pool()?.ready ?? 0) >= 1) {
      const ids = (
        await docker("ps", "-q", "--filter", `label=${POOL_LABEL}`, "--filter", `label=agentcage.owner=${OWNER}`, "--filter", "status=running")
      ).split("\n");
      if (ids.length === 1 && ids[0] !== "") return ids[0] as string;
    }
    await sleep(100);
  }
  throw new Error(`no member was ready: ${JSON.stringify(warm.pool())}`);
}

/** Every process's argv and environment in the container, read by a process whose own argv holds no key. */
async function processWords(container: string): Promise<string> {
  return await docker(
    "exec",
    container,
    "sh",
    "-c",
    "for p in /proc/[0-9]*; do tr '\\0' ' ' <$p/cmdline; echo; tr '\\0' ' ' <$p/environ; echo; done 2>/dev/null",
  );
}

/** Every file the runner's Staging Directory holds, as text. */
async function stagedText(runtimeDir: string): Promise<string> {
  const entries = await readdir(runtimeDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, "utf8").catch(() => "")))).join("\n");
}

/** Starts a Run whose model never answers, and resolves with its running container once claude has sent its request (the key is in use). */
async function hangingRun(runner: AgentRunner, controller: AbortController) {
  const before = (await standIn.requests()).length;
  const outcome = runner.run({ cli: "claude", timeoutSeconds: 120 }, `[stand-in:hang] ${PROMPT}`, { signal: controller.signal });
  for (let i = 0; i < 300 && (await standIn.requests()).length === before; i++) await sleep(100);
  const running = (await docker("ps", "-q", "--filter", `label=agentcage.owner=${OWNER}`, "--filter", "status=running")).split("\n").filter(Boolean);
  return { outcome, running };
}

describe('claude\'s key under networkPolicy "none", read by its key helper', () => {
  it("starts claude ahead in a member that holds no key before its claim, its helper waiting", async () => {
    const member = await readyMember();
    expect(await docker("inspect", member)).not.toContain(CLAUDE_KEY);
    const words = await processWords(member);
    expect(words).toContain("--print");
    expect(words).toContain("apiKeyHelper");
    expect(words).toContain(".agentcage-secrets/.ready");
    expect(words).not.toContain(CLAUDE_KEY);
    expect(await docker("exec", member, "ls", "-A", "/tmp/.agentcage-secrets")).toBe(".ready");
    // Longer than claude waits for a text prompt on stdin (3 s): the claim may come late.
    await sleep(4000);

    const outcome = await warm.run({ cli: "claude", timeoutSeconds: 120 }, PROMPT);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ ok: true, warm: true, result: { text: PLAIN_ANSWER }, network: { policy: "declared" } });
    expect(warm.pool()?.headStarts).toEqual({ used: 1, wasted: 0 });
    expect((await standIn.requests()).at(-1)?.credentialSha256).toBe(KEY_SHA256);
    expect(JSON.stringify(outcome)).not.toContain(CLAUDE_KEY);
  }, 180_000);

  it("keeps the key out of the claimed member's argv, environment and inspect while claude uses it, and out of every file of the Run", async () => {
    await readyMember();
    const controller = new AbortController();
    const { outcome, running } = await hangingRun(warm, controller);
    expect((await standIn.requests()).at(-1)?.credentialSha256).toBe(KEY_SHA256);
    const keyFiles: string[] = [];
    for (const container of running) {
      expect(await docker("inspect", container)).not.toContain(CLAUDE_KEY);
      expect(await processWords(container)).not.toContain(CLAUDE_KEY);
      keyFiles.push(await docker("exec", container, "sh", "-c", "cat /tmp/.agentcage-secrets/anthropic-api-key 2>/dev/null || true"));
    }
    // The key is only in its file on the claimed container's tmpfs (a replacement member may run beside it, without).
    expect(keyFiles.filter((text) => text === CLAUDE_KEY)).toHaveLength(1);
    expect(keyFiles.filter((text) => text !== CLAUDE_KEY && text !== "")).toEqual([]);
    controller.abort();
    const ended = await outcome;
    expect(ended, JSON.stringify(ended)).toMatchObject({ reason: "cancelled", warm: true });
    expect(JSON.stringify(ended)).not.toContain(CLAUDE_KEY);
    expect(await stagedText(join(dir, "warm"))).not.toContain(CLAUDE_KEY);
  }, 180_000);

  it("serves a cold Run the same way: the key in no argv, environment or inspect of its container", async () => {
    const done = await cold.run({ cli: "claude", timeoutSeconds: 120 }, PROMPT);
    expect(done, JSON.stringify(done)).toMatchObject({ ok: true, result: { text: PLAIN_ANSWER } });
    expect((await standIn.requests()).at(-1)?.credentialSha256).toBe(KEY_SHA256);

    const controller = new AbortController();
    const { outcome, running } = await hangingRun(cold, controller);
    const members = (await docker("ps", "-q", "--filter", `label=${POOL_LABEL}`, "--filter", `label=agentcage.owner=${OWNER}`)).split("\n");
    const coldOnes = running.filter((id) => !members.includes(id));
    expect(coldOnes).toHaveLength(1);
    const container = coldOnes[0] as string;
    const inspected = await docker("inspect", container);
    expect(inspected).not.toContain(CLAUDE_KEY);
    expect(inspected).not.toContain("ANTHROPIC_API_KEY");
    const words = await processWords(container);
    expect(words).toContain("apiKeyHelper");
    expect(words).not.toContain(CLAUDE_KEY);
    controller.abort();
    expect(await outcome).toMatchObject({ reason: "cancelled" });
    expect(await stagedText(join(dir, "cold"))).not.toContain(CLAUDE_KEY);
  }, 180_000);

  it("leaves nothing of a member killed before its claim, and its replacement holds no key either", async () => {
    const member = await readyMember();
    await docker("kill", member);
    let replacement = "";
    for (let i = 0; i < 300 && (replacement === "" || replacement.startsWith(member.slice(0, 12))); i++) {
      await sleep(100);
      replacement = await readyMember().catch(() => "");
    }
    expect(replacement).not.toBe("");
    expect(await docker("ps", "-aq", "--filter", `id=${member}`)).toBe("");
    expect(await processWords(replacement)).not.toContain(CLAUDE_KEY);
    expect(await stagedText(join(dir, "warm"))).not.toContain(CLAUDE_KEY);
  }, 180_000);
});
