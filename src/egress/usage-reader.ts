// Reads what a model call used from the provider's answer, on the side of the bytes the client
// gets: server-sent events (Anthropic message_start + message_delta; OpenAI response.completed)
// or a JSON body's `usage`. Invariant: it only ever reads a copy; whatever it cannot read (a cut
// stream, an unknown shape, an oversized JSON body) yields what was seen so far, never an error.

import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { MAX_METERED_JSON_BYTES } from "./limits.js";
import type { ResponseUsage } from "./meter.js";
import type { EgressCli, EgressUsage } from "./run.js";

export type UsageReader = {
  readonly write: (chunk: Uint8Array) => void;
  /** What the answer said it used, undefined when it said nothing (an error, a cut stream before any usage). */
  readonly end: () => ResponseUsage | undefined;
};

type Json = Record<string, unknown>;

/** A reader for one response of `cli`'s provider, chosen by its content type and encoding. */
export function createUsageReader(cli: EgressCli, contentType: string | undefined, contentEncoding: string | undefined): UsageReader {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  const type = (contentType ?? "").toLowerCase();
  const sse = type.startsWith("text/event-stream");
  if (!sse && !type.includes("json")) return { write: () => undefined, end: () => undefined };
  const state = cli === "claude" ? anthropicState() : openaiState();
  if (encoding !== "identity") {
    // The proxy asks upstream for identity; a provider that compresses anyway is read at the end.
    const body = boundedBytes();
    return {
      write: body.write,
      end: () => {
        const bytes = body.bytes();
        if (bytes === undefined) return undefined;
        const text = decompress(bytes, encoding);
        if (text === undefined) return undefined;
        if (sse) feedEvents(state, text);
        else state.onBody(parseJson(text));
        return state.result();
      },
    };
  }
  if (sse) {
    const decoder = new TextDecoder();
    const parser = createParser({ onEvent: (event) => onEvent(state, event) });
    return {
      write: (chunk) => parser.feed(decoder.decode(chunk, { stream: true })),
      end: () => {
        parser.feed(decoder.decode());
        return state.result();
      },
    };
  }
  const body = boundedBytes();
  return {
    write: body.write,
    end: () => {
      const bytes = body.bytes();
      if (bytes !== undefined) state.onBody(parseJson(Buffer.from(bytes).toString("utf8")));
      return state.result();
    },
  };
}

type State = {
  /** Event names worth parsing; every other event passes unparsed. */
  readonly wanted: ReadonlySet<string>;
  readonly onEvent: (name: string, data: Json) => void;
  readonly onBody: (body: Json | undefined) => void;
  readonly result: () => ResponseUsage | undefined;
};

function onEvent(state: State, event: EventSourceMessage): void {
  const name = event.event ?? /"type"\s*:\s*"([^"]+)"/.exec(event.data.slice(0, 200))?.[1];
  if (name === undefined || !state.wanted.has(name)) return;
  const data = parseJson(event.data);
  if (data !== undefined) state.onEvent(name, data);
}

function feedEvents(state: State, text: string): void {
  const parser = createParser({ onEvent: (event) => onEvent(state, event) });
  parser.feed(text);
}

// Anthropic: message_start carries the input side (and the model); message_delta carries the
// output so far, and in newer API versions the input side again. Both are cumulative.
function anthropicState(): State {
  let usage: EgressUsage | undefined;
  let model: string | undefined;
  const merge = (u: unknown): void => {
    if (!isJson(u)) return;
    const base = usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    usage = {
      inputTokens: count(u["input_tokens"]) ?? base.inputTokens,
      outputTokens: count(u["output_tokens"]) ?? base.outputTokens,
      cacheReadTokens: count(u["cache_read_input_tokens"]) ?? base.cacheReadTokens,
      cacheWriteTokens: count(u["cache_creation_input_tokens"]) ?? base.cacheWriteTokens,
    };
  };
  const modelOf = (m: unknown): void => {
    if (typeof m === "string" && m !== "") model ??= m;
  };
  return {
    wanted: new Set(["message_start", "message_delta"]),
    onEvent: (name, data) => {
      if (name === "message_start" && isJson(data["message"])) {
        modelOf(data["message"]["model"]);
        merge(data["message"]["usage"]);
      } else if (name === "message_delta") merge(data["usage"]);
    },
    onBody: (body) => {
      if (body === undefined) return;
      modelOf(body["model"]);
      merge(body["usage"]);
    },
    result: () => resultOf(usage, model),
  };
}

// OpenAI Responses: the usage is on the final response (completed, incomplete or failed);
// input_tokens includes the cached ones, which are counted apart here.
function openaiState(): State {
  let usage: EgressUsage | undefined;
  let model: string | undefined;
  const fromResponse = (response: unknown): void => {
    if (!isJson(response)) return;
    if (typeof response["model"] === "string" && response["model"] !== "") model = response["model"];
    const u = response["usage"];
    if (!isJson(u)) return;
    const input = count(u["input_tokens"]) ?? 0;
    const details = isJson(u["input_tokens_details"]) ? u["input_tokens_details"] : {};
    const cached = Math.min(input, count(details["cached_tokens"]) ?? 0);
    usage = { inputTokens: input - cached, outputTokens: count(u["output_tokens"]) ?? 0, cacheReadTokens: cached, cacheWriteTokens: 0 };
  };
  return {
    wanted: new Set(["response.created", "response.completed", "response.incomplete", "response.failed"]),
    onEvent: (_name, data) => fromResponse(data["response"]),
    onBody: (body) => fromResponse(body),
    result: () => resultOf(usage, model),
  };
}

function resultOf(usage: EgressUsage | undefined, model: string | undefined): ResponseUsage | undefined {
  if (usage === undefined) return undefined;
  return model === undefined ? { usage } : { usage, model };
}

/** Collects at most MAX_METERED_JSON_BYTES; past that, reading gives up (bytes() is undefined). */
function boundedBytes(): { readonly write: (chunk: Uint8Array) => void; readonly bytes: () => Uint8Array | undefined } {
  const chunks: Uint8Array[] = [];
  let size = 0;
  return {
    write: (chunk) => {
      size += chunk.length;
      if (size <= MAX_METERED_JSON_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    },
    bytes: () => (size <= MAX_METERED_JSON_BYTES ? Buffer.concat(chunks) : undefined),
  };
}

function decompress(bytes: Uint8Array, encoding: string): string | undefined {
  try {
    const options = { maxOutputLength: MAX_METERED_JSON_BYTES };
    if (encoding === "gzip" || encoding === "x-gzip") return gunzipSync(bytes, options).toString("utf8");
    if (encoding === "deflate") return inflateSync(bytes, options).toString("utf8");
    if (encoding === "br") return brotliDecompressSync(bytes, options).toString("utf8");
  } catch {
    return undefined;
  }
  return undefined;
}

function parseJson(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJson(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}
