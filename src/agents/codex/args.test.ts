// codexArgs decides every word codex is started with: these tests pin the whole argv for the
// defaults, for each request field on its own and for all of them together. The prompt is never
// an argument: it goes on stdin (the final "-").

import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { codexArgs } from "./args.js";
import { parseAgentRequest, type AgentRequestInput, type CodexProvider } from "../index.js";

const codex = (fields: Omit<AgentRequestInput, "cli"> = {}, provider?: CodexProvider, workdir = "/work") =>
  codexArgs(parseAgentRequest({ cli: "codex", ...fields }), { workdir, ...(provider === undefined ? {} : { provider }) });

/** A system prompt that would break any argv or TOML built by pasting text. */
const AWKWARD = "Say \"hi\" \\ then stop.\nSecond line\twith a tab; $(id) `id` 'single' --model x";

/** The value codex reads from the word `key=<text>`: the text parsed as the TOML value of `_x_ = <text>`. */
function readBack(word: string, key: string): unknown {
  expect(word.startsWith(`${key}=`)).toBe(true);
  return parse(`_x_ = ${word.slice(key.length + 1).trim()}`)["_x_"];
}

const CODEX_BASE = [
  "codex",
  "exec",
  "--json",
  "--cd",
  "/work",
  "--skip-git-repo-check",
  "--sandbox",
  "danger-full-access",
  "--ephemeral",
  "--ignore-user-config",
  "--disable",
  "shell_snapshot",
  "-c",
  "analytics.enabled=false",
  "-c",
  'otel.metrics_exporter="none"',
  "-c",
  'otel.exporter="none"',
  "-c",
  'otel.trace_exporter="none"',
  "-c",
  "feedback.enabled=false",
  "-c",
  "check_for_update_on_startup=false",
  "--disable",
  "plugins",
  "--disable",
  "apps",
] as const;
const WEB_OFF = ["-c", 'web_search="disabled"'] as const;

describe("codexArgs", () => {
  it("works in the directory it is given, the staged workspace's, not a fixed /work", () => {
    const args = codex({}, undefined, "/src");
    expect(args.slice(args.indexOf("--cd"), args.indexOf("--cd") + 2)).toEqual(["--cd", "/src"]);
  });

  it("gives the defaults: exec --json in /work, its sandbox off, no user config, nothing sent but to the model, web search off, the prompt from stdin", () => {
    expect(codex()).toEqual([...CODEX_BASE, ...WEB_OFF, "-"]);
  });

  it("adds --model for a model", () => {
    expect(codex({ model: "gpt-5.5" })).toEqual([...CODEX_BASE, ...WEB_OFF, "--model", "gpt-5.5", "-"]);
  });

  it("sets model_reasoning_effort for an effort", () => {
    expect(codex({ effort: "high" })).toEqual([...CODEX_BASE, ...WEB_OFF, "-c", 'model_reasoning_effort="high"', "-"]);
  });

  it("turns live web search on for web", () => {
    expect(codex({ web: true })).toEqual([...CODEX_BASE, "-c", 'web_search="live"', "-"]);
  });

  it("disables the shell tool and web search for noTools", () => {
    expect(codex({ noTools: true })).toEqual([...CODEX_BASE, ...WEB_OFF, "--disable", "shell_tool", "-"]);
    expect(codex({ noTools: true, web: true })).toEqual([...CODEX_BASE, ...WEB_OFF, "--disable", "shell_tool", "-"]);
  });

  it("has no turn limit to pass, so maxTurns changes nothing", () => {
    expect(codex({ maxTurns: 3 })).toEqual([...CODEX_BASE, ...WEB_OFF, "-"]);
  });

  it("sets developer_instructions for a systemPrompt", () => {
    expect(codex({ systemPrompt: "Be brief." })).toEqual([...CODEX_BASE, ...WEB_OFF, "-c", 'developer_instructions="Be brief."', "-"]);
  });

  it("keeps a systemPrompt with quotes and newlines as one word whose TOML string round-trips", () => {
    const args = codex({ systemPrompt: AWKWARD });
    const word = args[args.length - 2] ?? "";
    expect(args).toEqual([...CODEX_BASE, ...WEB_OFF, "-c", word, "-"]);
    expect(word.startsWith("developer_instructions=")).toBe(true);
    expect(word).not.toContain("\n");
    expect(readBack(word, "developer_instructions")).toBe(AWKWARD);
  });

  it("escapes DEL in a systemPrompt, which TOML forbids raw", () => {
    const word = codex({ systemPrompt: "a\u007fb" }).find((w) => w.startsWith("developer_instructions=")) ?? "";
    expect(word).not.toContain("\u007f");
    expect(readBack(word, "developer_instructions")).toBe("a\u007fb");
  });

  it("resumes a session after the exec options, before the stdin marker", () => {
    expect(codex({ resumeSession: "01a22a3a-acd8-76d0-b073-23922d1390c9" })).toEqual([
      ...CODEX_BASE,
      ...WEB_OFF,
      "resume",
      "01a22a3a-acd8-76d0-b073-23922d1390c9",
      "-",
    ]);
  });

  it("puts every field in a fixed order", () => {
    expect(
      codex({ model: "gpt-5.5", effort: "low", web: true, maxTurns: 5, systemPrompt: "Be brief.", resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" }),
    ).toEqual([
      "codex",
      "exec",
      "--json",
      "--cd",
      "/work",
      "--skip-git-repo-check",
      "--sandbox",
      "danger-full-access",
      "--ephemeral",
      "--ignore-user-config",
      "--disable",
      "shell_snapshot",
      "-c",
      "analytics.enabled=false",
      "-c",
      'otel.metrics_exporter="none"',
      "-c",
      'otel.exporter="none"',
      "-c",
      'otel.trace_exporter="none"',
      "-c",
      "feedback.enabled=false",
      "-c",
      "check_for_update_on_startup=false",
      "--disable",
      "plugins",
      "--disable",
      "apps",
      "-c",
      'web_search="live"',
      "--model",
      "gpt-5.5",
      "-c",
      'model_reasoning_effort="low"',
      "-c",
      'developer_instructions="Be brief."',
      "resume",
      "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c",
      "-",
    ]);
  });

  it("takes no prompt: it always ends with - to read it from stdin", () => {
    expect(codexArgs.length).toBe(2);
    expect(codex({ resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c", systemPrompt: "x" }).at(-1)).toBe("-");
  });

  describe("with a CodexProvider", () => {
    const providerWords = (table: string) => ["-c", 'model_provider="agentcage"', "-c", `model_providers.agentcage={ ${table} }`];

    it("declares the provider, with env_key OPENAI_API_KEY by default", () => {
      expect(codex({}, { baseUrl: "http://stand-in:8080/v1" })).toEqual([
        ...CODEX_BASE,
        ...WEB_OFF,
        ...providerWords(
          'name = "agentcage", base_url = "http://stand-in:8080/v1", env_key = "OPENAI_API_KEY", wire_api = "responses", request_max_retries = 0, stream_max_retries = 0',
        ),
        "-",
      ]);
    });

    it("uses the envKey it is given", () => {
      expect(codex({}, { baseUrl: "https://gateway.example/v1", envKey: "GATEWAY_KEY" })).toEqual([
        ...CODEX_BASE,
        ...WEB_OFF,
        ...providerWords(
          'name = "agentcage", base_url = "https://gateway.example/v1", env_key = "GATEWAY_KEY", wire_api = "responses", request_max_retries = 0, stream_max_retries = 0',
        ),
        "-",
      ]);
    });

    it("runs the provider's model when the request names none, and the request's when it does", () => {
      expect(codex({}, { baseUrl: "http://x", model: "gpt-5.5" })).toContain("--model");
      expect(codex({}, { baseUrl: "http://x", model: "gpt-5.5" }).join(" ")).toContain("--model gpt-5.5");
      expect(codex({ model: "m1" }, { baseUrl: "http://x", model: "gpt-5.5" }).join(" ")).toContain("--model m1");
      expect(codex({}, { baseUrl: "http://x" })).not.toContain("--model");
    });

    it("writes a base_url and envKey with quotes, backslashes, brackets and a newline so that codex reads them back exactly", () => {
      const baseUrl = 'http://h/"a\\b]}\n[x]=#';
      const envKey = 'K", model_provider = "evil';
      const args = codex({}, { baseUrl, envKey, maxRetries: 2 });
      const table = args.find((word) => word.startsWith("model_providers.agentcage=")) ?? "";
      expect(readBack(table, "model_providers.agentcage")).toEqual({
        name: "agentcage",
        base_url: baseUrl,
        env_key: envKey,
        wire_api: "responses",
        request_max_retries: 2,
        stream_max_retries: 2,
      });
    });

    it("comes after the request's fields and before resume", () => {
      expect(codex({ model: "m1", resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" }, { baseUrl: "http://x" })).toEqual([
        ...CODEX_BASE,
        ...WEB_OFF,
        "--model",
        "m1",
        ...providerWords(
          'name = "agentcage", base_url = "http://x", env_key = "OPENAI_API_KEY", wire_api = "responses", request_max_retries = 0, stream_max_retries = 0',
        ),
        "resume",
        "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c",
        "-",
      ]);
    });
  });
});
