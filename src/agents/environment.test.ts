// publicEnvironment is the whole non-secret environment an agent gets: an allow-list written
// here, never copied from the orchestrator's process.env.

import { afterEach, describe, expect, it } from "vitest";
import { publicEnvironment } from "./environment.js";

const SHARED = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  LANG: "C.UTF-8",
  TZ: "UTC",
  HOME: "/tmp",
  TMPDIR: "/var/tmp",
  DISABLE_AUTOUPDATER: "1",
};

/** claude's own switches for everything it would send somewhere other than the model. */
const CLAUDE_QUIET = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_BUG_COMMAND: "1",
  DISABLE_FEEDBACK_COMMAND: "1",
  CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
  DISABLE_UPDATES: "1",
  CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
  ENABLE_CLAUDEAI_MCP_SERVERS: "false",
};

describe("publicEnvironment", () => {
  it("gives claude the shared variables, its config dir on tmpfs and no traffic but to the model", () => {
    expect(publicEnvironment("claude")).toEqual({
      ...SHARED,
      CLAUDE_CONFIG_DIR: "/tmp/claude-config",
      ...CLAUDE_QUIET,
    });
  });

  it("adds ANTHROPIC_BASE_URL for claude when an endpoint is given", () => {
    expect(publicEnvironment("claude", { anthropicBaseUrl: "http://stand-in:8080" })).toEqual({
      ...SHARED,
      CLAUDE_CONFIG_DIR: "/tmp/claude-config",
      ...CLAUDE_QUIET,
      ANTHROPIC_BASE_URL: "http://stand-in:8080",
    });
  });

  it("gives codex the shared variables and CODEX_HOME on tmpfs", () => {
    expect(publicEnvironment("codex")).toEqual({ ...SHARED, CODEX_HOME: "/tmp" });
  });

  it("ignores anthropicBaseUrl for codex", () => {
    expect(publicEnvironment("codex", { anthropicBaseUrl: "http://stand-in:8080" })).toEqual({ ...SHARED, CODEX_HOME: "/tmp" });
  });

  describe("with the orchestrator's environment full of values", () => {
    const planted = {
      AGENTCAGE_TEST_LEAK: "leak-value-0123456789",
      ANTHROPIC_API_KEY: "sk-ant-leak-0123456789",
      CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat-leak-0123456789",
      OPENAI_API_KEY: "sk-leak-0123456789",
      ANTHROPIC_BASE_URL: "http://leak.example",
      PATH: "/leak/bin",
      HOME: "/leak/home",
    } as const;
    const saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));

    afterEach(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    it.each(["claude", "codex"] as const)("lets none of it into %s's environment", (cli) => {
      Object.assign(process.env, planted);
      const environment = publicEnvironment(cli);
      expect(environment).toEqual(
        cli === "claude" ? { ...SHARED, CLAUDE_CONFIG_DIR: "/tmp/claude-config", ...CLAUDE_QUIET } : { ...SHARED, CODEX_HOME: "/tmp" },
      );
      const values = Object.values(environment);
      for (const value of Object.values(planted)) expect(values).not.toContain(value);
    });
  });

  it("returns a fresh object each time, so a caller's change stays its own", () => {
    const first = publicEnvironment("claude");
    first["PATH"] = "/changed";
    expect(publicEnvironment("claude")["PATH"]).toBe("/usr/local/bin:/usr/bin:/bin");
  });
});
