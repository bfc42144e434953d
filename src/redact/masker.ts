// Hides registered secret values (every env value, every credential) in any text the project
// writes: log lines, records, error messages, Outcomes. Env values never enter an argv at all
// (see src/container/render-cli.ts); this is the second line, for what an agent or an engine prints back.
// Each value is looked for in all its spellings (see spellings.ts), all in one pass over the text;
// longest() is the longest spelling, and a stream must hold back that much to mask one it splits.

import { createByteSearch, createSearch, replaceByteSpans, replaceSpans, type ByteSearch, type Search } from "./search.js";
import { spellingsOf } from "./spellings.js";

/** What a secret value is replaced with. */
export const REDACTED = "[REDACTED]";
const REDACTED_BYTES = Buffer.from(REDACTED, "utf8");

/** Replaces registered secret values in text; values too short to be credentials are ignored. */
export type Masker = {
  /** Registers a value, with its JSON escape and its base64, base64url, hex and percent encodings. */
  readonly add: (value: string) => void;
  readonly mask: (text: string) => string;
  /**
   * For a text that more will follow: masks the part of it no later text can change, and hands back
   * the rest unmasked (at most 2 × longest() characters), to be passed again in front of what follows.
   */
  readonly maskSettled: (text: string) => { readonly masked: string; readonly unsettled: string };
  /**
   * maskSettled for bytes that more will follow (a response streaming through): the unsettled tail
   * is only what could still begin a spelling (its bytes are the start of one), or an occurrence
   * found whole that a later one could still overlap, at most 2 × the longest spelling's UTF-8
   * bytes; most chunks leave none. Both parts may share the memory of `bytes`.
   */
  readonly maskSettledBytes: (bytes: Uint8Array) => { readonly masked: Buffer; readonly unsettled: Buffer };
  /** Masks every string and byte array inside a JSON-like value, keys included; other class instances pass as they are. */
  readonly maskDeep: <T>(value: T) => T;
  /** Length in characters of the longest registered spelling (0 when none), for maskers of streams. */
  readonly longest: () => number;
};

export function createMasker(initial: Iterable<string> = []): Masker {
  const values = new Set<string>();
  const spellings = new Set<string>();
  let longest = 0;
  let longestBytes = 0;
  // Built on first use after a change: registering many values costs one build, not one each.
  let textSearch: Search | undefined;
  let byteSearch: ByteSearch | undefined;
  let byteStarts: ByteStarts | undefined;
  const add = (value: string): void => {
    if (values.has(value)) return;
    values.add(value);
    for (const spelling of spellingsOf(value)) {
      spellings.add(spelling);
      longest = Math.max(longest, spelling.length);
      longestBytes = Math.max(longestBytes, Buffer.byteLength(spelling, "utf8"));
    }
    textSearch = undefined;
    byteSearch = undefined;
    byteStarts = undefined;
  };
  for (const value of initial) add(value);
  const find = (text: string): number[] => {
    if (spellings.size === 0) return [];
    textSearch ??= createSearch(spellings);
    return textSearch(text);
  };
  const mask = (text: string): string => replaceSpans(text, find(text), REDACTED);
  const maskSettled = (text: string): { masked: string; unsettled: string } => {
    const spans = find(text);
    let cut = Math.max(0, text.length - Math.max(0, longest - 1));
    if (cut > 0 && cut < text.length && isLowSurrogate(text.charCodeAt(cut))) cut -= 1;
    cut = settledCut(text.length, spans, cut, longest);
    return { masked: replaceSpans(text, spans, REDACTED, cut), unsettled: text.slice(cut) };
  };
  // Bytes are searched as they are, for the UTF-8 bytes of each spelling.
  const findBytes = (bytes: Buffer): number[] => {
    if (spellings.size === 0) return [];
    byteSearch ??= createByteSearch([...spellings].map((spelling) => Buffer.from(spelling, "utf8")));
    return byteSearch(bytes);
  };
  const maskBytes = (bytes: Uint8Array): Buffer => {
    const view = bufferOf(bytes);
    // A copy even when nothing is masked: the caller may change what it passed.
    return Buffer.from(replaceByteSpans(view, findBytes(view), REDACTED_BYTES));
  };
  const maskSettledBytes = (bytes: Uint8Array): { masked: Buffer; unsettled: Buffer } => {
    const view = bufferOf(bytes);
    const spans = findBytes(view);
    if (spellings.size === 0) return { masked: view, unsettled: view.subarray(view.length) };
    byteStarts ??= startsOf([...spellings].map((spelling) => Buffer.from(spelling, "utf8")));
    // An occurrence not yet whole begins where the rest of the bytes is the start of a spelling.
    const cut = settledCut(view.length, spans, partialStart(view, byteStarts, longestBytes), longestBytes);
    return { masked: replaceByteSpans(view, spans, REDACTED_BYTES, cut), unsettled: view.subarray(cut) };
  };
  const maskDeep = <T>(value: T): T => {
    if (spellings.size === 0) return value;
    if (typeof value === "string") return mask(value) as T;
    if (value instanceof Uint8Array) return maskBytes(value) as T;
    if (value instanceof Error) return Object.assign(new Error(mask(value.message)), { name: value.name }) as T;
    if (Array.isArray(value)) return value.map((item) => maskDeep(item)) as T;
    if (value !== null && typeof value === "object") {
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null) {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k), maskDeep(v)])) as T;
      }
    }
    return value;
  };
  return { add, mask, maskSettled, maskSettledBytes, maskDeep, longest: () => longest };
}

/**
 * Where a text that more will follow may be cut: no later text can change what comes before it.
 * An occurrence that starts before `cut` ends within the text, so it is already found whole; one
 * that crosses the cut stays unsettled, whole, unless a chain of overlapping ones makes it too long.
 */
function settledCut(length: number, spans: readonly number[], cut: number, longest: number): number {
  for (let i = 0; i + 1 < spans.length; i += 2) {
    const from = spans[i] ?? 0;
    const to = spans[i + 1] ?? 0;
    if (from >= cut) break;
    if (to > cut) cut = length - from <= 2 * longest ? from : to;
  }
  return cut;
}

/** The byte spellings by their first byte. */
type ByteStarts = readonly (readonly Uint8Array[] | undefined)[];

function startsOf(spellings: readonly Uint8Array[]): ByteStarts {
  const starts: Uint8Array[][] = [];
  for (const spelling of spellings) (starts[spelling[0] ?? 0] ??= []).push(spelling);
  return starts;
}

/**
 * Where the first occurrence that `bytes` end inside of begins: the first place, within the last
 * longest - 1 bytes, from which the rest of the bytes is the start of a spelling longer than that
 * rest; the end of the bytes when there is none.
 */
function partialStart(bytes: Uint8Array, starts: ByteStarts, longest: number): number {
  for (let at = Math.max(0, bytes.length - (longest - 1)); at < bytes.length; at++) {
    const rest = bytes.length - at;
    for (const spelling of starts[bytes[at] ?? 0] ?? []) if (spelling.length > rest && bytesAt(bytes, spelling, at, rest)) return at;
  }
  return bytes.length;
}

/** Whether the first `count` bytes of `pattern` are in `bytes` at `at`. */
function bytesAt(bytes: Uint8Array, pattern: Uint8Array, at: number, count: number): boolean {
  for (let i = 1; i < count; i++) if (bytes[at + i] !== pattern[i]) return false;
  return true;
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
