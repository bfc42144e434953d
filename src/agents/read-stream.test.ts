// Both parsers against fixtures captured from the real claude and codex CLIs (see
// test/fixtures/README.md), fed at chunk sizes 1, 2, 3, 7, 64 and whole.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseClaudeStream, parseCodexStream, type AgentEvent, type AgentResult } from "./index.js";

const CHUNK_SIZES = [1, 2, 3, 7, 64, Number.MAX_SAFE_INTEGER];
const fixture = (cli: string, name: string) => readFileSync(new URL(`../../test/fixtures/${cli}/${name}.jsonl`, import.meta.url));

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, Math.min(bytes.length, i + size));
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const ONE_TURN_USAGE = { inputTokens: 21, outputTokens: 17, cacheReadTokens: 3400, cacheWriteTokens: 1200 };
const THREE_TURN_USAGE = { inputTokens: 63, outputTokens: 51, cacheReadTokens: 10200, cacheWriteTokens: 3600 };
const MODEL = "claude-sonnet-4-5-20250929";

const claudeCases: ReadonlyArray<readonly [string, Partial<AgentResult>]> = [
  [
    "plain",
    {
      ok: true,
      reason: "completed",
      text: "The capital of France is Paris.",
      sessionId: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c",
      numTurns: 1,
      usage: ONE_TURN_USAGE,
      costUsd: expect.closeTo(0.005838, 9) as unknown as number,
      model: MODEL,
    },
  ],
  [
    "non_ascii",
    {
      ok: true,
      reason: "completed",
      text: "Café au lait, 日本語のテキスト, emoji 🦀🎉 and a line\u2028separator.",
      sessionId: "0b814f43-4029-4dda-84f0-e0449c6f69bf",
      usage: ONE_TURN_USAGE,
    },
  ],
  [
    "tool_write_bash",
    {
      ok: true,
      reason: "completed",
      text: "I wrote out/answer.txt and ran the command; it printed from-bash.",
      numTurns: 3,
      usage: THREE_TURN_USAGE,
      costUsd: 0.017514,
    },
  ],
  ["max_turns", { ok: false, reason: "max_turns", error: "Reached maximum number of turns (3)", numTurns: 4, usage: THREE_TURN_USAGE, costUsd: 0.017514 }],
  [
    "max_turns.max_budget",
    {
      ok: false,
      reason: "budget_exceeded",
      retryable: false,
      error: "Reached maximum budget ($0.01)",
      numTurns: 2,
      costUsd: expect.closeTo(0.011676, 9) as unknown as number,
    },
  ],
  ["status_401", { ok: false, reason: "credential_refused", retryable: false, error: "Invalid API key · Fix external API key", usage: NO_USAGE, costUsd: 0 }],
  ["status_429", { ok: false, reason: "rate_limited", retryable: true, resetAt: "2026-11-30T02:10:38.000Z" }],
  ["status_529", { ok: false, reason: "overloaded", retryable: true }],
  ["status_529.retried", { ok: false, reason: "overloaded", retryable: true }],
  ["status_500", { ok: false, reason: "overloaded", retryable: true }],
  ["quota", { ok: false, reason: "quota_exceeded", retryable: false, error: "Credit balance is too low" }],
  [
    "cut_mid_record",
    { ok: false, reason: "no_result", text: "The capital of France is Paris.", sessionId: "6f9b66aa-50a7-4b68-8cb5-57e7b106a44c", noiseLines: 1 },
  ],
  ["hang", { ok: false, reason: "no_result", sessionId: "130aa2bb-74ea-425e-a1ae-7eb3104e2616" }],
];

// codex's input_tokens include its cached_input_tokens (OpenAI's way); the usage keeps the four apart, as the egress proxy does.
const CODEX_USAGE = { inputTokens: 66, outputTokens: 17, cacheReadTokens: 64, cacheWriteTokens: 0 };
const codexCases: ReadonlyArray<readonly [string, Partial<AgentResult>]> = [
  [
    "plain",
    {
      ok: true,
      reason: "completed",
      text: "The capital of France is Paris.",
      sessionId: "01a22a3a-acd8-76d0-b073-23922d1390c9",
      numTurns: 1,
      usage: CODEX_USAGE,
    },
  ],
  ["plain.unknown_model", { ok: true, reason: "completed", text: "The capital of France is Paris." }],
  ["non_ascii", { ok: true, reason: "completed", text: "Café au lait, 日本語のテキスト, emoji 🦀🎉 and a line\u2028separator.", usage: CODEX_USAGE }],
  [
    "tool_write_bash",
    {
      ok: true,
      reason: "completed",
      text: "I wrote out/answer.txt and ran the command; it printed from-bash.",
      usage: { inputTokens: 132, outputTokens: 34, cacheReadTokens: 128, cacheWriteTokens: 0 },
    },
  ],
  ["status_401", { ok: false, reason: "credential_refused", retryable: false }],
  [
    "status_429",
    { ok: false, reason: "rate_limited", retryable: true, error: "exceeded retry limit, last status: 429 Too Many Requests, request id: req_standin_error" },
  ],
  ["status_529", { ok: false, reason: "overloaded", retryable: true, error: "Selected model is at capacity. Please try a different model." }],
  ["status_500", { ok: false, reason: "overloaded", retryable: true }],
  ["status_500.retried", { ok: false, reason: "overloaded", retryable: true }],
  ["quota", { ok: false, reason: "quota_exceeded", retryable: false, error: "Quota exceeded. Check your plan and billing details." }],
  ["cut_mid_record", { ok: false, reason: "no_result", text: "The capital of France is Paris.", noiseLines: 1 }],
  ["max_turns", { ok: false, reason: "no_result", sessionId: "01a22a38-6c86-7932-971d-608b976a3a41" }],
  ["hang", { ok: false, reason: "no_result" }],
];

describe("parseClaudeStream on the real CLI's output", () => {
  for (const [name, expected] of claudeCases) {
    it.each(CHUNK_SIZES)(`reads ${name} at chunk size %s`, async (size) => {
      const result = await parseClaudeStream(chunked(fixture("claude", name), size));
      expect(result).toMatchObject(expected);
      if (!result.ok) expect(result.error).toBeTruthy();
    });
  }

  it("emits each response as a turn with the tokens so far, the tool calls and their results in order, then the answer, usage and result", async () => {
    const events: AgentEvent[] = [];
    await parseClaudeStream(chunked(fixture("claude", "tool_write_bash"), 64), { onEvent: (e) => events.push(e) });
    expect(
      events.map((e) =>
        e.type === "tool_call" ? `tool_call:${e.name}` : e.type === "turn" ? `turn:${e.number}` : e.type === "usage" ? `usage:${e.usage.inputTokens}` : e.type,
      ),
    ).toEqual([
      "init",
      "turn:1",
      "usage:21",
      "tool_call:Write",
      "tool_result",
      "turn:2",
      "usage:42",
      "tool_call:Bash",
      "tool_result",
      "turn:3",
      "usage:63",
      "assistant_text",
      "usage:63",
      "result",
    ]);
    const bash = events.find((e) => e.type === "tool_result" && e.text === "from-bash");
    expect(bash).toMatchObject({ isError: false });
  });
});

describe("parseCodexStream on the real CLI's output", () => {
  for (const [name, expected] of codexCases) {
    it.each(CHUNK_SIZES)(`reads ${name} at chunk size %s`, async (size) => {
      const result = await parseCodexStream(chunked(fixture("codex", name), size));
      expect(result).toMatchObject(expected);
    });
  }

  it("emits the shell call and its output, then the answer, usage and result", async () => {
    const events: AgentEvent[] = [];
    await parseCodexStream(chunked(fixture("codex", "tool_write_bash"), 7), { onEvent: (e) => events.push(e), model: "gpt-5.5" });
    const kinds = events.map((e) => e.type);
    expect(kinds[0]).toBe("init");
    expect(kinds.slice(-3)).toEqual(["assistant_text", "usage", "result"]);
    // Each item codex completes (the command, the message) is a turn.
    expect(events.filter((e) => e.type === "turn").map((e) => (e.type === "turn" ? e.number : 0))).toEqual([1, 2]);
    expect(kinds.filter((k) => k === "tool_call").length).toBe(kinds.filter((k) => k === "tool_result").length);
    expect(events.some((e) => e.type === "tool_result" && e.text === "from-bash\n")).toBe(true);
  });
});

describe("what the stream decides, and what it does not", () => {
  const lines = (...records: object[]) => Buffer.from(records.map((r) => JSON.stringify(r)).join("\n"));

  it("keeps a successful answer that mentions 429 or 401 completed", async () => {
    const text = "The API returned 429 and then 401; rate limit and authentication errors are handled.";
    const claude = await parseClaudeStream(chunked(lines({ type: "result", subtype: "success", is_error: false, result: text }), 5));
    expect(claude).toMatchObject({ ok: true, reason: "completed", text });
    const codex = await parseCodexStream(
      chunked(lines({ type: "item.completed", item: { type: "agent_message", text } }, { type: "turn.completed", usage: {} }), 5),
    );
    expect(codex).toMatchObject({ ok: true, reason: "completed", text });
  });

  it("never calls subtype success with is_error true a success", async () => {
    const result = await parseClaudeStream(
      chunked(lines({ type: "result", subtype: "success", is_error: true, api_error_status: 401, result: "API Error" }), 3),
    );
    expect(result).toMatchObject({ ok: false, reason: "credential_refused" });
  });

  it("ends codex's stream at its turn.completed, with that record's usage", async () => {
    const result = await parseCodexStream(
      chunked(
        lines(
          { type: "turn.completed", usage: { input_tokens: 30, cached_input_tokens: 5, output_tokens: 4 } },
          { type: "turn.completed", usage: { input_tokens: 90, output_tokens: 9 } },
        ),
        2,
      ),
    );
    expect(result).toMatchObject({ ok: true, numTurns: 1, usage: { inputTokens: 25, outputTokens: 4, cacheReadTokens: 5, cacheWriteTokens: 0 } });
  });

  it("tolerates noise up to its cap, then calls the stream a protocol_error", async () => {
    const noisy = Buffer.from(`${"warning: something\n".repeat(3)}${JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "hi" })}\n`);
    expect(await parseClaudeStream(chunked(noisy, 7), { maxNoiseLines: 3 })).toMatchObject({ ok: true, noiseLines: 3 });
    expect(await parseClaudeStream(chunked(noisy, 7), { maxNoiseLines: 2 })).toMatchObject({ ok: false, reason: "protocol_error" });
    expect(await parseCodexStream(chunked(Buffer.from("x\n".repeat(5)), 1), { maxNoiseLines: 4 })).toMatchObject({ ok: false, reason: "protocol_error" });
  });

  it("skips an oversized line and counts it", async () => {
    const big = Buffer.concat([
      Buffer.from(`{"type":"assistant","x":"${"a".repeat(2000)}"}\n`),
      lines({ type: "result", subtype: "success", is_error: false, result: "ok" }),
    ]);
    expect(await parseClaudeStream(chunked(big, 64), { maxLineBytes: 1000 })).toMatchObject({ ok: true, oversizedLines: 1 });
  });
});

describe("the terminal record ends the reading", () => {
  const line = (record: object) => Buffer.from(`${JSON.stringify(record)}\n`);
  const CLAUDE_RESULT = { type: "result", subtype: "success", is_error: false, result: "done", session_id: "s-1", num_turns: 1 };

  /** Yields `bytes` in chunks of `size`, then never ends; records whether the reader closed it. */
  function neverEnding(bytes: Buffer, size: number): AsyncIterable<Uint8Array> & { closed: boolean } {
    const source = {
      closed: false,
      [Symbol.asyncIterator]: () => {
        let at = 0;
        return {
          next: (): Promise<IteratorResult<Uint8Array>> =>
            at < bytes.length
              ? Promise.resolve({ done: false, value: bytes.subarray(at, (at += size)) })
              : new Promise<IteratorResult<Uint8Array>>(() => undefined),
          return: (): Promise<IteratorResult<Uint8Array>> => {
            source.closed = true;
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
    return source;
  }

  it.each(CHUNK_SIZES)("resolves claude's result when nothing follows and the stream never ends, at chunk size %s", async (size) => {
    const source = neverEnding(line(CLAUDE_RESULT), size);
    expect(await parseClaudeStream(source)).toEqual({ ok: true, reason: "completed", text: "done", sessionId: "s-1", numTurns: 1 });
    expect(source.closed).toBe(true);
  });

  it.each(CHUNK_SIZES)("resolves codex's turn.completed and turn.failed when the stream never ends, at chunk size %s", async (size) => {
    const completed = neverEnding(
      Buffer.concat([line({ type: "item.completed", item: { type: "agent_message", text: "done" } }), line({ type: "turn.completed", usage: {} })]),
      size,
    );
    expect(await parseCodexStream(completed)).toMatchObject({ ok: true, reason: "completed", text: "done", numTurns: 1 });
    const failed = neverEnding(line({ type: "turn.failed", error: { message: "unexpected status 401 Unauthorized: bad key" } }), size);
    expect(await parseCodexStream(failed)).toMatchObject({ ok: false, reason: "credential_refused" });
    expect([completed.closed, failed.closed]).toEqual([true, true]);
  });

  it("keeps the terminal record's answer whatever follows it, noise and records alike", async () => {
    const after = Buffer.concat([
      line(CLAUDE_RESULT),
      Buffer.from("panic: upload failed\n".repeat(5)),
      line({ ...CLAUDE_RESULT, subtype: "error_during_execution", is_error: true }),
    ]);
    expect(await parseClaudeStream(chunked(after, 7), { maxNoiseLines: 1 })).toEqual({
      ok: true,
      reason: "completed",
      text: "done",
      sessionId: "s-1",
      numTurns: 1,
    });
    const codexAfter = Buffer.concat([
      line({ type: "turn.completed", usage: {} }),
      line({ type: "error", message: "metrics upload failed" }),
      line({ type: "turn.failed", error: { message: "late" } }),
    ]);
    const events: AgentEvent[] = [];
    expect(await parseCodexStream(chunked(codexAfter, 3), { onEvent: (e) => events.push(e) })).toMatchObject({ ok: true, reason: "completed" });
    expect(events.map((e) => e.type)).toEqual(["usage", "result"]);
  });

  it("still waits for the stream's end when no terminal record came", async () => {
    const source = neverEnding(line({ type: "system", subtype: "init", session_id: "s-1" }), 64);
    const settled = await Promise.race([parseClaudeStream(source).then(() => "resolved"), new Promise((resolve) => setTimeout(() => resolve("pending"), 50))]);
    expect(settled).toBe("pending");
  });
});

describe("parseCodexStream and an endpoint it cannot reach", () => {
  it("ends at the first reconnect that names an unreachable endpoint, with the cause, not at the timeout", async () => {
    const lines = [
      '{"type":"thread.started","thread_id":"01a22d68-b870-7550-ba2d-ed68dd90136c"}',
      '{"type":"turn.started"}',
      '{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information: Try again)"}',
    ];
    async function* neverEnds(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode(`${lines.join("\n")}\n`);
      await new Promise(() => undefined);
    }
    const result = await parseCodexStream(neverEnds());
    expect(result).toMatchObject({ ok: false, reason: "api_error", retryable: true, sessionId: "01a22d68-b870-7550-ba2d-ed68dd90136c" });
    expect(result.error).toContain(
      "codex cannot reach its model's endpoint: Reconnecting... 2/5 (stream disconnected before completion: failed to lookup address information",
    );
  });

  it("keeps reading past a reconnect for a passing overload", async () => {
    const result = await parseCodexStream(chunked(fixture("codex", "status_500.retried"), 64));
    expect(result).toMatchObject({ ok: false, reason: "overloaded" });
  });
});
