// The whole chain with the real claude and codex CLIs (images/agent), every security default on:
// each Run's agent container joins a stand-in model server's container that has no network
// (`--network container:<id>`), so the agent reaches the stand-in on loopback and nothing else.
// A canary credential must reach the model and nothing else we can look at.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentRunner, type AgentEvent, type AgentOutcome, type AgentRequestInput } from "../index.js";
import { capturingLogger, containersOfRun } from "../../test/support/engine.js";
import { AGENT_IMAGE, STAND_IN_PORT, type StandInRequest, startStandInModel } from "../../test/support/stand-in-container.js";

const CANARY = "sk-canary-e2e-6d2f8b1a9c4e7035";
const scratch = mkdtempSync(join(tmpdir(), "agentcage-e2e-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Seen = {
  outcome: AgentOutcome;
  events: AgentEvent[];
  logs: string[];
  argv: string;
  record: string;
  harvest: string;
  requests: StandInRequest[];
  /** Ms from the CLI's result record reaching us to run() resolving: what a stall after the answer would add to. */
  afterAnswerMs: number | undefined;
};

/** Every file below `dir`, with its text. */
function filesBelow(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile()) out[path.slice(dir.length + 1)] = readFileSync(path, "utf8");
  }
  return out;
}

async function runAgainst(scenario: string, request: AgentRequestInput): Promise<Seen> {
  const standIn = await startStandInModel(scenario);
  const { logger, lines } = capturingLogger();
  const runtimeDir = join(scratch, `runs-${scenario}-${request.cli}`);
  const harvest = join(scratch, `harvest-${scenario}-${request.cli}`);
  try {
    const runner = createAgentRunner({
      image: AGENT_IMAGE,
      environment: { ANTHROPIC_API_KEY: CANARY, OPENAI_API_KEY: CANARY },
      staging: { runtimeDir, keepRuns: true },
      networks: [standIn.network],
      anthropicBaseUrl: `http://127.0.0.1:${STAND_IN_PORT}`,
      codexProvider: { baseUrl: `http://127.0.0.1:${STAND_IN_PORT}/v1` },
      apiRetries: 0,
      logger,
    });
    const events: AgentEvent[] = [];
    let argv = "";
    let answeredAt: number | undefined;
    const outcome = await runner.run(request, "Answer the question, please.", {
      harvestTo: harvest,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "result") answeredAt ??= Date.now();
        if (argv === "") argv = execFileSync("ps", ["-eww", "-o", "args"], { encoding: "utf8" });
      },
    });
    const afterAnswerMs = answeredAt === undefined ? undefined : Date.now() - answeredAt;
    return { outcome, events, logs: lines, argv, record: join(runtimeDir, outcome.runId), harvest, requests: await standIn.requests(), afterAnswerMs };
  } finally {
    await standIn.stop();
  }
}

function expectNoCanary(seen: Seen): void {
  expect(JSON.stringify(seen.outcome)).not.toContain(CANARY);
  expect(JSON.stringify(seen.events)).not.toContain(CANARY);
  expect(seen.logs.join("\n")).not.toContain(CANARY);
  expect(seen.argv).not.toContain(CANARY);
  // The record holds work/ and out/ too (keepRuns); the harvest is what the caller got.
  for (const [name, text] of Object.entries(filesBelow(seen.record))) expect(`${name}: ${text}`).not.toContain(CANARY);
  if (existsSync(seen.harvest)) for (const [name, text] of Object.entries(filesBelow(seen.harvest))) expect(`${name}: ${text}`).not.toContain(CANARY);
  expect(containersOfRun(seen.outcome.runId)).toEqual([]);
}

describe.each(["claude", "codex"] as const)("the real %s CLI in the locked-down container", (cli) => {
  it("answers a plain question: completed, with text, usage and session id", async () => {
    const seen = await runAgainst("plain", { cli, model: cli === "claude" ? "claude-sonnet-4-5-20250929" : "gpt-5.5", maxTurns: 5 });
    expect(seen.outcome).toMatchObject({
      ok: true,
      reason: "completed",
      credential: "api_key",
      result: { ok: true, reason: "completed", text: "The capital of France is Paris." },
    });
    expect(seen.outcome.result?.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.outcome.result?.usage?.inputTokens).toBeGreaterThan(0);
    if (cli === "claude") expect(seen.outcome.result?.costUsd).toBeGreaterThan(0);
    expect(seen.requests.length).toBeGreaterThanOrEqual(1);
    expectNoCanary(seen);
  });

  it("ends when it has answered, with nothing on stderr: no upload, sync or update check left to time out, no warning", async () => {
    const seen = await runAgainst("plain", { cli, maxTurns: 5 });
    expect(seen.outcome).toMatchObject({ ok: true, reason: "completed", exit: { code: 0 } });
    expect(seen.outcome.stderr).toBe("");
    // A lookup that cannot resolve in the cage costs 5 s. Timed from the answer, not from the start:
    // loading the CLI takes seconds on a busy machine, while exit, wait and removal take well under one.
    expect(seen.afterAnswerMs).toBeDefined();
    expect(seen.afterAnswerMs).toBeLessThan(4000);
    expectNoCanary(seen);
  });

  it("ends a 401 as credential_refused", async () => {
    const seen = await runAgainst("status_401", { cli, maxTurns: 5 });
    expect(seen.outcome).toMatchObject({ ok: false, reason: "failed", result: { reason: "credential_refused" } });
    expectNoCanary(seen);
  });

  it("ends a 429 as rate_limited", async () => {
    const seen = await runAgainst("status_429", { cli, maxTurns: 5 });
    expect(seen.outcome).toMatchObject({ ok: false, reason: "failed", result: { reason: "rate_limited", retryable: true } });
    expectNoCanary(seen);
  });

  it("ends a model that never answers as timeout, with the container gone", async () => {
    const seen = await runAgainst("hang", { cli, maxTurns: 5, timeoutSeconds: 5 });
    expect(seen.outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(seen.outcome.durationMs).toBeLessThan(30_000);
    expectNoCanary(seen);
  });
});

describe("the real claude CLI's tools", () => {
  it("writes out/answer.txt with Write and runs Bash: the file is harvested and the events show the calls in order", async () => {
    const seen = await runAgainst("tool_write_bash", { cli: "claude", maxTurns: 10 });
    expect(seen.outcome).toMatchObject({ ok: true, reason: "completed", harvest: { ok: true, files: 1 } });
    expect(filesBelow(seen.harvest)).toEqual({ "answer.txt": "written by the stand-in model\n" });
    expect(statSync(join(seen.harvest, "answer.txt")).mode & 0o777).toBe(0o644);
    const calls = seen.events.flatMap((e) => (e.type === "tool_call" ? [e.name] : e.type === "tool_result" ? [`result${e.isError ? ":error" : ""}`] : []));
    expect(calls).toEqual(["Write", "result", "Bash", "result"]);
    expect(seen.events.some((e) => e.type === "tool_result" && e.text === "from-bash")).toBe(true);
    expectNoCanary(seen);
  });

  it("ends a loop of tool calls as max_turns", async () => {
    const seen = await runAgainst("max_turns", { cli: "claude", maxTurns: 3 });
    expect(seen.outcome).toMatchObject({ ok: false, reason: "failed", result: { reason: "max_turns" } });
    expectNoCanary(seen);
  });

  it("keeps HOME and its config dir on the tmpfs: nothing of them reaches the Run directory or a volume", async () => {
    const volumesBefore = execFileSync("docker", ["volume", "ls", "--quiet"], { encoding: "utf8" });
    const seen = await runAgainst("plain", { cli: "claude", maxTurns: 5 });
    expect(seen.outcome.ok).toBe(true);
    expect(Object.keys(filesBelow(seen.record)).sort()).toEqual(["done", "outcome.json", "prompt.txt", "request.json", "run.json", "stderr.txt", "stdout.txt"]);
    expect(execFileSync("docker", ["volume", "ls", "--quiet"], { encoding: "utf8" })).toBe(volumesBefore);
  });
});

describe("the real codex CLI's -c values", () => {
  // Codex reads the text after `-c key=` as TOML and, when that fails, silently takes the text
  // itself: a value that starts with a quote and ends with a space, and holds escapes, only comes
  // through exactly if codex parsed it. Short enough for the stand-in's 120-character excerpt.
  const HOSTILE_PROMPT = `"Hi" C:\\d\\ \\u0041 ]] [[model_providers.x]] a = b # no\n\tl2\r\n😀 مرحبا \u202Eok\u202C \u0007\u007f ' `;

  it("reads a systemPrompt of quotes, backslashes, brackets, line breaks, control characters and RTL text exactly as given", async () => {
    expect(HOSTILE_PROMPT.length).toBeLessThan(120);
    const seen = await runAgainst("plain", { cli: "codex", maxTurns: 5, systemPrompt: HOSTILE_PROMPT });
    expect(seen.outcome).toMatchObject({ ok: true, reason: "completed" });
    const developerParts = seen.requests
      .flatMap((request) => request.history ?? [])
      .flatMap((turn) => (turn.role === "developer" ? turn.text.split(" | ") : []));
    expect(developerParts).toContain(HOSTILE_PROMPT);
  });
});
