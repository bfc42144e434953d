import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { MAX_METERED_JSON_BYTES, MAX_SKIPPED_EVENT_BYTES } from "./limits.js";
import type { ResponseUsage } from "./meter.js";
import type { ModelProvider } from "../plan/index.js";
import { createUsageReader } from "./usage-reader.js";

// Shaped as the providers send them (event names, field order, a ping, CRLF in one), with a
// multi-byte text delta, so a chunk boundary falls inside a character at some sizes.
const ANTHROPIC_STREAM = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":2048,"cache_read_input_tokens":9000,"cache_creation":{"ephemeral_5m_input_tokens":2048,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Café 日本語 🦀"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\r\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"cache_creation_input_tokens":2048,"cache_read_input_tokens":9000,"output_tokens":345}}\r\n\r\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

const OPENAI_STREAM = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","model":"gpt-5-2025-08-07","status":"in_progress","output":[],"usage":null}}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Café 日本語 🦀"}\n\n',
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","object":"response","model":"gpt-5-2025-08-07","status":"completed","output":[],"usage":{"input_tokens":5000,"input_tokens_details":{"cached_tokens":4096},"output_tokens":250,"output_tokens_details":{"reasoning_tokens":128},"total_tokens":5250}}}\n\n',
].join("");

const ANTHROPIC_EXPECTED: ResponseUsage = {
  model: "claude-sonnet-4-5-20250929",
  usage: { inputTokens: 12, outputTokens: 345, cacheReadTokens: 9000, cacheWriteTokens: 2048 },
};
const OPENAI_EXPECTED: ResponseUsage = {
  model: "gpt-5-2025-08-07",
  usage: { inputTokens: 904, outputTokens: 250, cacheReadTokens: 4096, cacheWriteTokens: 0 },
};

function readInChunks(
  provider: ModelProvider,
  bytes: Buffer,
  size: number,
  contentType = "text/event-stream; charset=utf-8",
  encoding?: string,
): ResponseUsage | undefined {
  const reader = createUsageReader(provider, contentType, encoding);
  for (let i = 0; i < bytes.length; i += size) reader.write(bytes.subarray(i, i + size));
  return reader.end();
}

const SIZES = [1, 2, 3, 7, 64, Number.MAX_SAFE_INTEGER];

describe("reading a model call's usage on the side", () => {
  it.each(SIZES)("reads Anthropic's message_start and message_delta fed %i bytes at a time", (size) => {
    expect(readInChunks("anthropic", Buffer.from(ANTHROPIC_STREAM), size)).toEqual(ANTHROPIC_EXPECTED);
  });

  it.each(SIZES)("reads OpenAI's response.completed fed %i bytes at a time, cached input apart", (size) => {
    expect(readInChunks("openai", Buffer.from(OPENAI_STREAM), size)).toEqual(OPENAI_EXPECTED);
  });

  it("counts what a stream cut before message_delta said: the input, and one output token", () => {
    const cut = ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf("event: message_delta"));
    expect(readInChunks("anthropic", Buffer.from(cut), 64)).toEqual({ ...ANTHROPIC_EXPECTED, usage: { ...ANTHROPIC_EXPECTED.usage, outputTokens: 1 } });
  });

  it("reads nothing from an OpenAI stream cut before response.completed", () => {
    const cut = OPENAI_STREAM.slice(0, OPENAI_STREAM.indexOf("event: response.completed"));
    expect(readInChunks("openai", Buffer.from(cut), 64)).toBeUndefined();
  });

  it("keeps the older message_delta that carries output_tokens alone", () => {
    const older = ANTHROPIC_STREAM.replace(
      /"usage":\{"input_tokens":12,"cache_creation_input_tokens":2048,"cache_read_input_tokens":9000,"output_tokens":345\}/,
      '"usage":{"output_tokens":345}',
    );
    expect(older).not.toBe(ANTHROPIC_STREAM);
    expect(readInChunks("anthropic", Buffer.from(older), 7)).toEqual(ANTHROPIC_EXPECTED);
  });

  it("reads events that name their type only inside the data", () => {
    const unnamed = ANTHROPIC_STREAM.replace(/event: [a-z_]+\r?\n/g, "");
    expect(readInChunks("anthropic", Buffer.from(unnamed), 3)).toEqual(ANTHROPIC_EXPECTED);
  });

  it.each(SIZES)("reads usage among many text deltas it skips, in LF and CRLF streams, fed %i bytes at a time", (size) => {
    const delta = ANTHROPIC_STREAM.split("\n\n").find((event) => event.includes("content_block_delta")) ?? "";
    const many = (lineEnd: string): string => `${delta}\n\n`.repeat(50).replaceAll("\n", lineEnd);
    const [head, tail] = [ANTHROPIC_STREAM.slice(0, ANTHROPIC_STREAM.indexOf("event: ping")), ANTHROPIC_STREAM.slice(ANTHROPIC_STREAM.indexOf("event: ping"))];
    const crlf = ANTHROPIC_STREAM.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
    for (const stream of [
      `${head}${many("\n")}${tail}`,
      `${crlf.slice(0, crlf.indexOf("event: ping"))}${many("\r\n")}${crlf.slice(crlf.indexOf("event: ping"))}`,
    ]) {
      expect(readInChunks("anthropic", Buffer.from(stream), size)).toEqual(ANTHROPIC_EXPECTED);
    }
  });

  it.each([1000, 64 * 1024, Number.MAX_SAFE_INTEGER])("reads usage after an event longer than the bytes it skips unparsed, fed %i bytes at a time", (size) => {
    const huge = `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${"x".repeat(2 * MAX_SKIPPED_EVENT_BYTES)}"}}\n\n`;
    const stream = ANTHROPIC_STREAM.replace("event: ping", `${huge}event: ping`);
    expect(readInChunks("anthropic", Buffer.from(stream), size)).toEqual(ANTHROPIC_EXPECTED);
    // A usage event that is itself past the bound, and a stream with no blank line at all (CR line ends).
    const padded = ANTHROPIC_STREAM.replace('"stop_sequence":null},', `"stop_sequence":null,"pad":"${"y".repeat(2 * MAX_SKIPPED_EVENT_BYTES)}"},`);
    expect(readInChunks("anthropic", Buffer.from(padded), size)).toEqual(ANTHROPIC_EXPECTED);
    expect(readInChunks("anthropic", Buffer.from(ANTHROPIC_STREAM.replace(/\r?\n/g, "\r")), size)).toEqual(ANTHROPIC_EXPECTED);
  });

  it("reads a JSON answer's usage, plain and gzipped", () => {
    const claude = Buffer.from(
      JSON.stringify({
        id: "msg_1",
        type: "message",
        model: "claude-haiku-4-5",
        content: [],
        usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5, cache_creation_input_tokens: 6 },
      }),
    );
    const expected = { model: "claude-haiku-4-5", usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 5, cacheWriteTokens: 6 } };
    expect(readInChunks("anthropic", claude, 7, "application/json")).toEqual(expected);
    expect(readInChunks("anthropic", gzipSync(claude), 7, "application/json", "gzip")).toEqual(expected);
    const codex = Buffer.from(
      JSON.stringify({ id: "resp_1", model: "o3", usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 4 }, output_tokens: 2 } }),
    );
    expect(readInChunks("openai", codex, 64, "application/json; charset=utf-8")).toEqual({
      model: "o3",
      usage: { inputTokens: 6, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: 0 },
    });
  });

  it("reads a gzipped event stream at its end", () => {
    expect(readInChunks("openai", gzipSync(Buffer.from(OPENAI_STREAM)), 64, "text/event-stream", "gzip")).toEqual(OPENAI_EXPECTED);
  });

  it("gives up, without an error, on what it cannot read", () => {
    expect(readInChunks("anthropic", Buffer.from("not json"), 64, "application/json")).toBeUndefined();
    expect(readInChunks("anthropic", Buffer.from("<html>"), 64, "text/html")).toBeUndefined();
    expect(readInChunks("anthropic", Buffer.from("garbage"), 64, "application/json", "gzip")).toBeUndefined();
    expect(readInChunks("anthropic", Buffer.from('data: {"type":"message_start","message":{"usage":{"input_tokens":-5}}}\n\n'), 64)).toEqual({
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    const huge = Buffer.from(`{"usage":{"input_tokens":1},"pad":"${"x".repeat(MAX_METERED_JSON_BYTES)}"}`);
    expect(readInChunks("anthropic", huge, 1024 * 1024, "application/json")).toBeUndefined();
  });
});
