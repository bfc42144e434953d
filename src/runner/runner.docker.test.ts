// The agent runner against the real engine, with the test image's stand-in `claude` that leaks
// its credential on both streams: the value reaches the agent and no argv, log line, Run record
// or Outcome, and the agent's environment is the allow-list and nothing of ours.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgentRunner, type AgentEvent } from "../index.js";
import { TEST_IMAGE, capturingLogger, containersOfRun } from "../../test/support/engine.js";

const KEY = "sk-ant-canary-4f1e9d2c7b3a";
const scratch = mkdtempSync(join(tmpdir(), "agentcage-agents-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("an agent Run's credential", () => {
  it("reaches the agent and no argv, log line, record or Outcome, even when the agent prints it", async () => {
    const { logger, lines } = capturingLogger();
    const runtimeDir = join(scratch, "runs");
    const runner = createAgentRunner({
      image: TEST_IMAGE,
      environment: { ANTHROPIC_API_KEY: KEY, UNRELATED_SECRET: "orchestrator-only-value" },
      staging: { runtimeDir, keepRuns: true },
      logger,
    });
    const events: AgentEvent[] = [];
    let argv = "";
    const outcome = await runner.run({ cli: "claude", model: "sonnet", maxTurns: 5 }, "hello", {
      onEvent: (event) => {
        events.push(event);
        if (argv === "") argv = execFileSync("ps", ["-eww", "-o", "args"], { encoding: "utf8" });
      },
    });
    expect(outcome).toMatchObject({
      ok: true,
      reason: "completed",
      credential: "api_key",
      result: { ok: true, reason: "completed", sessionId: "fake-session", text: "read 5 bytes; key [REDACTED]; home /tmp" },
    });
    expect(outcome.stderr).toBe("stderr leak: [REDACTED]\n");
    expect(events.find((e) => e.type === "assistant_text")).toEqual({ type: "assistant_text", text: "stdout leak: [REDACTED]" });
    expect(argv).toContain("--dangerously-skip-permissions");
    for (const text of [argv, JSON.stringify(outcome), JSON.stringify(events), lines.join("\n")]) expect(text).not.toContain(KEY);
    const record = join(runtimeDir, outcome.runId);
    for (const name of readdirSync(record).filter((n) => n.endsWith(".txt") || n.endsWith(".json"))) {
      expect(readFileSync(join(record, name), "utf8")).not.toContain(KEY);
    }
    expect(readFileSync(join(record, "request.json"), "utf8")).toContain('"cli": "claude"');
    expect(containersOfRun(outcome.runId)).toEqual([]);
  });

  it("gives the agent the allow-listed environment only", async () => {
    const runner = createAgentRunner({
      image: TEST_IMAGE,
      environment: { ANTHROPIC_API_KEY: KEY, LEAKY: "orchestrator-value" },
      logger: capturingLogger().logger,
    });
    const command = await runner.commandFor({ cli: "claude" }, "hi");
    const envWords = command.args.flatMap((word, i) => (command.args[i - 1] === "--env" ? [word] : []));
    expect(envWords.sort()).toEqual(
      [
        "ANTHROPIC_API_KEY",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
        "CLAUDE_CODE_MAX_RETRIES=2",
        "CLAUDE_CONFIG_DIR=/tmp/claude-config",
        "CODEX_HOME=/tmp",
        "DISABLE_AUTOUPDATER=1",
        "HOME=/tmp",
        "LANG=C.UTF-8",
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "TMPDIR=/var/tmp",
        "TZ=UTC",
        "DISABLE_TELEMETRY=1",
        "DISABLE_ERROR_REPORTING=1",
        "DISABLE_BUG_COMMAND=1",
        "DISABLE_FEEDBACK_COMMAND=1",
        "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
        "DISABLE_UPDATES=1",
        "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
        "ENABLE_CLAUDEAI_MCP_SERVERS=false",
      ].sort(),
    );
    expect(command.env).toEqual({ ANTHROPIC_API_KEY: KEY });
    expect(JSON.stringify(command.args)).not.toContain(KEY);
  });
});

describe("a codex Run with no budget", () => {
  it("shows no budget event and no outcome.budget: its maxTurns is held quietly, as claude's --max-turns is", async () => {
    const runner = createAgentRunner({ image: TEST_IMAGE, environment: { OPENAI_API_KEY: "sk-codex-no-budget-0001" } });
    const events: AgentEvent[] = [];
    const outcome = await runner.run({ cli: "codex" }, "hello", { onEvent: (event) => events.push(event) });
    expect(outcome).toMatchObject({ ok: true, reason: "completed" });
    // It did print events (the guard saw them): none of them is a budget one.
    expect(events.map((event) => event.type)).toContain("turn");
    expect(events.filter((event) => event.type === "budget")).toEqual([]);
    expect(outcome.budget).toBeUndefined();
  });
});

describe("a codex login", () => {
  it("reaches the agent as a read-only copy, wins over an API key, and is masked everywhere", async () => {
    const { logger, lines } = capturingLogger();
    const login = join(scratch, "codex-login");
    const runtimeDir = join(scratch, "login-runs");
    const TOKEN = "eyJ-login-canary-8c1d5e7f";
    execFileSync("mkdir", ["-p", login]);
    execFileSync("sh", [
      "-c",
      `printf '%s' '{"tokens": {"access_token": "${TOKEN}", "refresh_token": "rt-login-canary-2b9e"}}' > ${login}/auth.json && chmod 600 ${login}/auth.json`,
    ]);
    const runner = createAgentRunner({
      image: TEST_IMAGE,
      environment: { OPENAI_API_KEY: "sk-should-not-be-used-0001" },
      codexLoginDirectory: login,
      staging: { runtimeDir, keepRuns: true },
      logger,
    });
    const outcome = await runner.run({ cli: "codex" }, "hello");
    expect(outcome).toMatchObject({ ok: true, credential: "login", result: { text: "token [REDACTED]; login writable no; api key " } });
    expect(outcome.stderr).toBe("stderr leak: [REDACTED]\n");
    const record = join(runtimeDir, outcome.runId);
    expect(readdirSync(record)).not.toContain("secrets");
    for (const text of [
      JSON.stringify(outcome),
      lines.join("\n"),
      ...readdirSync(record)
        .filter((n) => n.includes("."))
        .map((n) => readFileSync(join(record, n), "utf8")),
    ]) {
      expect(text).not.toContain(TOKEN);
    }
    expect(readFileSync(join(login, "auth.json"), "utf8")).toContain(TOKEN);
  });

  it("needs staging, said at construction", () => {
    expect(() => createAgentRunner({ image: TEST_IMAGE, codexLoginDirectory: "/srv/codex-login" })).toThrow(
      'codexLoginDirectory "/srv/codex-login" needs staging',
    );
  });
});
