// claudeArgs decides every word claude is started with: these tests pin the whole argv for the
// defaults, for each request field on its own and for all of them together. The prompt is never
// an argument: it goes on stdin.

import { describe, expect, it } from "vitest";
import { claudeArgs, claudeUserMessage } from "./args.js";
import { parseAgentRequest, type AgentRequestInput } from "../index.js";

const claude = (fields: Omit<AgentRequestInput, "cli"> = {}) => claudeArgs(parseAgentRequest({ cli: "claude", ...fields }));

/** A system prompt that would break any argv built by pasting text. */
const AWKWARD = "Say \"hi\" \\ then stop.\nSecond line\twith a tab; $(id) `id` 'single' --model x";

const CLAUDE_BASE = ["claude", "--print", "--output-format", "stream-json", "--verbose", "--max-turns", "100", "--dangerously-skip-permissions"] as const;
const NO_WEB = ["--disallowedTools", "WebSearch", "WebFetch"] as const;

describe("claudeArgs", () => {
  it("gives the defaults: print mode, stream-json, 100 turns, permissions bypassed, no web tools", () => {
    expect(claude()).toEqual([...CLAUDE_BASE, ...NO_WEB]);
  });

  it("takes the prompt as a stream-json message with streamInput, as one JSON line whatever the text holds", () => {
    expect(claudeArgs(parseAgentRequest({ cli: "claude" }), { streamInput: true })).toEqual([
      "claude",
      "--print",
      "--input-format",
      "stream-json",
      ...CLAUDE_BASE.slice(2),
      ...NO_WEB,
    ]);
    const line = claudeUserMessage(AWKWARD);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ type: "user", message: { role: "user", content: AWKWARD } });
  });

  it("names a key helper in --settings, as claude's apiKeyHelper, and the key nowhere", () => {
    const args = claudeArgs(parseAgentRequest({ cli: "claude" }), { keyHelper: "print-the-key /tmp/k" });
    expect(args.slice(args.indexOf("--settings"), args.indexOf("--settings") + 2)).toEqual(["--settings", '{"apiKeyHelper":"print-the-key /tmp/k"}']);
    expect(claudeArgs(parseAgentRequest({ cli: "claude" }))).not.toContain("--settings");
  });

  it("adds --model for a model", () => {
    expect(claude({ model: "claude-sonnet-4-5" })).toEqual([...CLAUDE_BASE, ...NO_WEB, "--model", "claude-sonnet-4-5"]);
  });

  it("adds --effort for an effort", () => {
    expect(claude({ effort: "high" })).toEqual([...CLAUDE_BASE, ...NO_WEB, "--effort", "high"]);
  });

  it("leaves the web tools allowed for web", () => {
    expect(claude({ web: true })).toEqual([...CLAUDE_BASE]);
  });

  it("removes every tool for noTools", () => {
    expect(claude({ noTools: true })).toEqual([...CLAUDE_BASE, "--tools", ""]);
  });

  it("removes every tool for noTools even with web", () => {
    expect(claude({ noTools: true, web: true })).toEqual([...CLAUDE_BASE, "--tools", ""]);
  });

  it("adds claude's own --max-budget-usd for a budget's maxCostUsd, a backstop to the live guard", () => {
    expect(claude({ budget: { maxCostUsd: 0.5 } })).toEqual([...CLAUDE_BASE, ...NO_WEB, "--max-budget-usd", "0.5"]);
    expect(claude({ budget: { maxTokens: 5000 } })).toEqual([...CLAUDE_BASE, ...NO_WEB]);
  });

  it("writes maxTurns after --max-turns", () => {
    expect(claude({ maxTurns: 0 })).toEqual([
      "claude",
      "--print",
      "--output-format",
      "stream-json",
      "--verbose",
      "--max-turns",
      "0",
      "--dangerously-skip-permissions",
      ...NO_WEB,
    ]);
    expect(claude({ maxTurns: 1000 })).toEqual([
      "claude",
      "--print",
      "--output-format",
      "stream-json",
      "--verbose",
      "--max-turns",
      "1000",
      "--dangerously-skip-permissions",
      ...NO_WEB,
    ]);
  });

  it("appends a systemPrompt as one word", () => {
    expect(claude({ systemPrompt: "Be brief." })).toEqual([...CLAUDE_BASE, ...NO_WEB, "--append-system-prompt", "Be brief."]);
  });

  it("keeps a systemPrompt with quotes, newlines and flags in it as one word", () => {
    expect(claude({ systemPrompt: AWKWARD })).toEqual([...CLAUDE_BASE, ...NO_WEB, "--append-system-prompt", AWKWARD]);
  });

  it("adds --resume for resumeSession", () => {
    expect(claude({ resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" })).toEqual([
      ...CLAUDE_BASE,
      ...NO_WEB,
      "--resume",
      "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c",
    ]);
  });

  it("puts every field in a fixed order", () => {
    expect(
      claude({ model: "opus", effort: "low", web: true, maxTurns: 5, systemPrompt: "Be brief.", resumeSession: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c" }),
    ).toEqual([
      "claude",
      "--print",
      "--output-format",
      "stream-json",
      "--verbose",
      "--max-turns",
      "5",
      "--dangerously-skip-permissions",
      "--model",
      "opus",
      "--effort",
      "low",
      "--append-system-prompt",
      "Be brief.",
      "--resume",
      "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c",
    ]);
  });

  it("takes no prompt: its one input is the typed request", () => {
    expect(claudeArgs.length).toBe(1);
  });
});
