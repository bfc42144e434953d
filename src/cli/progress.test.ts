import { describe, expect, it } from "vitest";
import { applyEvent, describeToolCall, formatBudget, formatSeconds, formatUsage, printable, shorten, startProgress } from "./progress.js";

describe("a Run's progress, folded from its events", () => {
  it("counts tool calls by name, keeps the last thing said, and takes the result's usage, cost, turns and session", () => {
    let progress = startProgress("claude", 0);
    progress = applyEvent(progress, { type: "init", sessionId: "s-1", model: "m-1" });
    progress = applyEvent(progress, { type: "tool_call", name: "Bash", input: { command: "npm   test\n--silent" } });
    progress = applyEvent(progress, { type: "tool_call", name: "Write", input: { file_path: "out/a.txt", content: "x" } });
    progress = applyEvent(progress, { type: "tool_call", name: "Bash", input: { command: "ls" } });
    progress = applyEvent(progress, { type: "assistant_text", text: "  done  " });
    progress = applyEvent(progress, { type: "assistant_text", text: "   " });
    // Each usage event is the total so far.
    progress = applyEvent(progress, { type: "usage", usage: { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    progress = applyEvent(progress, { type: "usage", usage: { inputTokens: 10, outputTokens: 4, cacheReadTokens: 1, cacheWriteTokens: 0 } });
    expect(progress).toMatchObject({ phase: "running", model: "m-1", sessionId: "s-1", toolCalls: 3, lastToolCall: "Bash: ls", lastText: "done" });
    expect([...progress.tools]).toEqual([
      ["Bash", 2],
      ["Write", 1],
    ]);
    expect(progress.usage).toEqual({ inputTokens: 10, outputTokens: 4, cacheReadTokens: 1, cacheWriteTokens: 0 });
    const usage = { inputTokens: 100, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 };
    progress = applyEvent(progress, { type: "result", result: { ok: true, reason: "completed", usage, costUsd: 0.5, numTurns: 4, sessionId: "s-2" } });
    expect(progress).toMatchObject({ usage, costUsd: 0.5, turns: 4, sessionId: "s-2" });
  });
});

describe("what a Run spent, while it goes", () => {
  it("takes the egress proxy's meter once there is one, and no count of the CLI's after it", () => {
    const metered = { inputTokens: 66, outputTokens: 17, cacheReadTokens: 64, cacheWriteTokens: 0 };
    let progress = applyEvent(startProgress("codex", 0), { type: "metered", turns: 1, usage: metered, costUsd: 0.0292, refused: 0 });
    expect(progress).toMatchObject({ usage: metered, costUsd: 0.0292, metered: true });
    progress = applyEvent(progress, { type: "usage", usage: { inputTokens: 130, outputTokens: 17, cacheReadTokens: 64, cacheWriteTokens: 0 } });
    progress = applyEvent(progress, {
      type: "budget",
      used: { turns: 1, tokens: 147, cachedTokens: 64, costUsd: 0.0071, costFrom: "dearest_price", wallSeconds: 1 },
      caps: { maxTokens: 1000 },
    });
    progress = applyEvent(progress, {
      type: "result",
      result: { ok: true, reason: "completed", usage: { inputTokens: 130, outputTokens: 17, cacheReadTokens: 64, cacheWriteTokens: 0 }, numTurns: 1 },
    });
    expect(progress).toMatchObject({ usage: metered, costUsd: 0.0292, turns: 1 });
  });
});

describe("a tool call in one line", () => {
  it.each([
    ["Bash", { command: "npm test\n  -- --watch=false" }, "Bash: npm test -- --watch=false"],
    ["Write", { file_path: "/work/out/answer.txt", content: "long" }, "Write: /work/out/answer.txt"],
    ["shell", { command: ["bash", "-lc", "echo hi"] }, "shell: bash -lc echo hi"],
    ["Grep", { pattern: "TODO" }, "Grep: TODO"],
    ["Custom", { a: 1 }, 'Custom: {"a":1}'],
    ["Custom", {}, "Custom"],
    ["Custom", undefined, "Custom"],
  ])("%s %j reads %j", (name, input, expected) => {
    expect(describeToolCall(name, input)).toBe(expected);
  });
});

describe("a budget and a stall warning", () => {
  it("shows each cap as spent/limit, and a quiet spell until the next event", () => {
    let progress = startProgress("claude", 0);
    progress = applyEvent(progress, {
      type: "budget",
      used: { turns: 2, tokens: 1234, cachedTokens: 0, costUsd: 0.0123, costFrom: "price_table", wallSeconds: 5 },
      caps: { maxTurns: 5, maxTokens: 10_000, maxCostUsd: 0.5 },
    });
    expect(formatBudget(progress.budget)).toBe("budget turns 2/5, tokens 1,234/10,000, $0.0123/$0.5000");
    progress = applyEvent(progress, { type: "stall_warning", silentSeconds: 300, stallSeconds: 600 });
    expect(progress.quietSeconds).toBe(300);
    progress = applyEvent(progress, { type: "assistant_text", text: "back" });
    expect(progress.quietSeconds).toBeUndefined();
  });
});

describe("the numbers a person reads", () => {
  it("shortens by characters, not bytes, with an ellipsis", () => {
    expect(shorten("日本語のテキスト", 4)).toBe("日本語…");
    expect(shorten("short", 10)).toBe("short");
  });
  it("writes seconds and minutes", () => {
    expect([formatSeconds(1234), formatSeconds(12_400), formatSeconds(125_000)]).toEqual(["1.2 s", "12 s", "2 min 5 s"]);
  });
  it("writes tokens with the cached ones only when there are some", () => {
    expect(formatUsage({ inputTokens: 1234, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBe("1,234 in / 5 out tokens");
    expect(formatUsage({ inputTokens: 1, outputTokens: 5, cacheReadTokens: 3, cacheWriteTokens: 4 })).toBe("1 in / 5 out tokens (cache 3 read, 4 written)");
  });
});

describe("text an agent wrote, on a terminal", () => {
  it("writes control characters out as \\x escapes and bidi controls as \\u{…}", () => {
    expect(printable("a\u001b[2Jb\u202egnp.exe\u2066c")).toBe("a\\x1b[2Jb\\u{202e}gnp.exe\\u{2066}c");
  });

  it("leaves tab, newline and every other character as they are", () => {
    expect(printable("tab\tline\nrésumé 日本")).toBe("tab\tline\nrésumé 日本");
  });
});
