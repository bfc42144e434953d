// Reads what a model call used from the provider's answer, on the side of the bytes the client
// gets: server-sent events or a JSON body's `usage`, each read by its provider's own reader
// (providers/: Anthropic's message_start + message_delta, OpenAI's response.completed).
// Events that cannot be wanted (no wanted type's name in their bytes) are skipped unparsed, whole
// events at a time, so an answer's many text deltas cost a byte search, not a parse.
// Invariant: it only ever reads a copy; whatever it cannot read (a cut stream, an unknown shape, an
// oversized JSON body) yields what was seen so far, never an error.

import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { MAX_METERED_JSON_BYTES, MAX_SKIPPED_EVENT_BYTES } from "./limits.js";
import type { ResponseUsage } from "./meter.js";
import type { ModelProvider } from "../plan/index.js";
import { EGRESS_PROVIDERS, type UsageState } from "./providers/index.js";

export type UsageReader = {
  readonly write: (chunk: Uint8Array) => void;
  /** What the answer said it used, undefined when it said nothing (an error, a cut stream before any usage). */
  readonly end: () => ResponseUsage | undefined;
};

type Json = Record<string, unknown>;

/** A reader for one response of `provider`, chosen by its content type and encoding. */
export function createUsageReader(provider: ModelProvider, contentType: string | undefined, contentEncoding: string | undefined): UsageReader {
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  const type = (contentType ?? "").toLowerCase();
  const sse = type.startsWith("text/event-stream");
  if (!sse && !type.includes("json")) return { write: () => undefined, end: () => undefined };
  const state = EGRESS_PROVIDERS[provider].usageState();
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
  if (sse) return eventReader(state);
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

/**
 * Reads server-sent events, parsing only the runs of whole events whose bytes name a wanted type
 * (in an `event:` line or a `"type"`, both spelled as written). An event ends at a blank line; one
 * is looked for as LF LF or LF CR LF, which every LF or CRLF stream has. Bytes with no blank line
 * in MAX_SKIPPED_EVENT_BYTES (a CR-only stream, one huge event) are parsed as they come, and so is
 * the rest of the event they began.
 */
function eventReader(state: UsageState): UsageReader {
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent: (event) => onEvent(state, event) });
  const names = [...state.wanted].map((name) => Buffer.from(name, "utf8"));
  const longestName = Math.max(0, ...names.map((name) => name.length));
  // Whether a run of events names a wanted type, searched where it lies: the held bytes are copied
  // only with the few bytes after them that a name could cross into.
  const named = (events: Buffer, heldBefore: readonly Buffer[]): boolean => {
    if (names.some((name) => events.includes(name))) return true;
    if (heldBefore.length === 0) return false;
    const joined = Buffer.concat([...heldBefore, events.subarray(0, longestName - 1)]);
    return names.some((name) => joined.includes(name));
  };
  let held: Buffer[] = [];
  let heldBytes = 0;
  // The parser was fed part of an event: what follows, up to its end, must be fed too.
  let inEvent = false;
  const feed = (bytes: Buffer): void => parser.feed(decoder.decode(bytes, { stream: true }));
  return {
    write: (chunk) => {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const end = eventsEnd(bytes);
      if (end === 0) {
        held.push(bytes);
        heldBytes += bytes.length;
        if (heldBytes > MAX_SKIPPED_EVENT_BYTES) {
          for (const part of held) feed(part);
          held = [];
          heldBytes = 0;
          inEvent = true;
        }
        return;
      }
      const ended = bytes.subarray(0, end);
      if (inEvent || named(ended, held)) feed(held.length === 0 ? ended : Buffer.concat([...held, ended]));
      inEvent = false;
      held = end === bytes.length ? [] : [bytes.subarray(end)];
      heldBytes = bytes.length - end;
    },
    end: () => {
      for (const part of held) feed(part);
      parser.feed(decoder.decode());
      return state.result();
    },
  };
}

/** Where the last blank line in `bytes` ends (0 when none): everything before it is whole events. */
function eventsEnd(bytes: Buffer): number {
  const lf = bytes.lastIndexOf(LF_LF);
  // Only a blank line after the last LF LF can end later: the rest of the bytes is not searched again.
  const from = Math.max(0, lf);
  const crlf = bytes.subarray(from).lastIndexOf(LF_CR_LF);
  return Math.max(lf < 0 ? 0 : lf + 2, crlf < 0 ? 0 : from + crlf + 3);
}

const LF_LF = Buffer.from("\n\n");
const LF_CR_LF = Buffer.from("\n\r\n");

function onEvent(state: UsageState, event: EventSourceMessage): void {
  const name = event.event ?? /"type"\s*:\s*"([^"]+)"/.exec(event.data.slice(0, 200))?.[1];
  if (name === undefined || !state.wanted.has(name)) return;
  const data = parseJson(event.data);
  if (data !== undefined) state.onEvent(name, data);
}

function feedEvents(state: UsageState, text: string): void {
  const parser = createParser({ onEvent: (event) => onEvent(state, event) });
  parser.feed(text);
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
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
