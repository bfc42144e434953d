// One pass over a text (or bytes) for many patterns at once (Wu–Manber): a table says how far the
// window may jump for the last three characters it ends on, so the cost hardly grows with the
// number of patterns (every secret's every spelling), and only windows whose end could end a
// pattern's start are compared. Every occurrence is found, overlapping ones too, and overlapping
// ones are joined: no character of any occurrence is left out of the spans. Text and bytes each
// have their own loop, so neither converts the other (a stream's chunks are searched as they are).

/** Characters hashed per step; every pattern must be at least this long. */
export const SEARCH_BLOCK_CHARS = 3;
const TABLE_BITS = 16;

/**
 * Where any of the patterns occurs in a text, as flat [from, to) pairs in order, occurrences that
 * overlap joined into one span; patterns shorter than SEARCH_BLOCK_CHARS are never found.
 */
export type Search = (text: string) => number[];
/** Search over bytes, for byte patterns (the UTF-8 of each spelling); offsets are byte offsets. */
export type ByteSearch = (bytes: Uint8Array) => number[];

type Table<P> = { readonly window: number; readonly shifts: Uint8Array; readonly candidates: (P[] | undefined)[] };

/** The jump table and the candidates by block, for patterns read through `codeAt`; undefined when none is long enough. */
function tableOf<P extends { readonly length: number }>(patterns: readonly P[], codeAt: (pattern: P, at: number) => number): Table<P> | undefined {
  const usable = patterns.filter((pattern) => pattern.length >= SEARCH_BLOCK_CHARS);
  if (usable.length === 0) return undefined;
  // The window is as long as the shortest pattern; each pattern is known by its first `window` characters.
  const window = usable.reduce((shortest, pattern) => Math.min(shortest, pattern.length), Infinity);
  const shifts = new Uint8Array(1 << TABLE_BITS).fill(Math.min(255, window - SEARCH_BLOCK_CHARS + 1));
  const candidates = new Array<P[] | undefined>(1 << TABLE_BITS);
  const blockAt = (pattern: P, end: number): number => hashOf(codeAt(pattern, end - 2), codeAt(pattern, end - 1), codeAt(pattern, end));
  // Longest first, so the longest occurrence that starts at a place is the one taken.
  for (const pattern of usable.sort((a, b) => b.length - a.length)) {
    // A block further than 255 characters from the window's end cannot lower a shift below 255.
    for (let end = Math.max(SEARCH_BLOCK_CHARS - 1, window - 256); end < window; end++) {
      const block = blockAt(pattern, end);
      shifts[block] = Math.min(shifts[block] ?? 0, window - 1 - end);
    }
    (candidates[blockAt(pattern, window - 1)] ??= []).push(pattern);
  }
  return { window, shifts, candidates };
}

export function createSearch(patterns: Iterable<string>): Search {
  const table = tableOf([...patterns], (pattern, at) => pattern.charCodeAt(at));
  if (table === undefined) return () => [];
  const { window, shifts, candidates } = table;
  return (text) => {
    const spans = createSpans();
    for (let end = window - 1; end < text.length; ) {
      const block = hashOf(text.charCodeAt(end - 2), text.charCodeAt(end - 1), text.charCodeAt(end));
      const shift = shifts[block] ?? 0;
      if (shift > 0) {
        end += shift;
        continue;
      }
      const start = end - window + 1;
      for (const pattern of candidates[block] ?? []) {
        // The last character first: a run that repeats a pattern's start fails here at once.
        const last = pattern.length - 1;
        if (text.charCodeAt(start + last) !== pattern.charCodeAt(last) || !text.startsWith(pattern, start)) continue;
        spans.add(start, start + pattern.length);
        break;
      }
      end += 1;
    }
    return spans.done();
  };
}

export function createByteSearch(patterns: Iterable<Uint8Array>): ByteSearch {
  const table = tableOf([...patterns], (pattern, at) => pattern[at] ?? 0);
  if (table === undefined) return () => [];
  const { window, shifts, candidates } = table;
  return (bytes) => {
    const spans = createSpans();
    for (let end = window - 1; end < bytes.length; ) {
      const block = hashOf(bytes[end - 2] ?? 0, bytes[end - 1] ?? 0, bytes[end] ?? 0);
      const shift = shifts[block] ?? 0;
      if (shift > 0) {
        end += shift;
        continue;
      }
      const start = end - window + 1;
      for (const pattern of candidates[block] ?? []) {
        const last = pattern.length - 1;
        if (start + last >= bytes.length || bytes[start + last] !== pattern[last] || !bytesAt(bytes, pattern, start)) continue;
        spans.add(start, start + pattern.length);
        break;
      }
      end += 1;
    }
    return spans.done();
  };
}

/** The text with each span, up to `end`, replaced by `replacement`; spans must end by `end`. */
export function replaceSpans(text: string, spans: readonly number[], replacement: string, end = text.length): string {
  if (spans.length === 0) return end === text.length ? text : text.slice(0, end);
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i + 1 < spans.length; i += 2) {
    const from = spans[i] ?? 0;
    if (from >= end) break;
    parts.push(text.slice(copied, from), replacement);
    copied = spans[i + 1] ?? from;
  }
  parts.push(text.slice(copied, end));
  return parts.join("");
}

/** replaceSpans for bytes: the first `end` bytes, the very same memory when no span starts before `end`. */
export function replaceByteSpans(bytes: Buffer, spans: readonly number[], replacement: Buffer, end = bytes.length): Buffer {
  if (spans.length === 0 || (spans[0] ?? end) >= end) return bytes.subarray(0, end);
  const parts: Buffer[] = [];
  let copied = 0;
  for (let i = 0; i + 1 < spans.length; i += 2) {
    const from = spans[i] ?? 0;
    if (from >= end) break;
    parts.push(bytes.subarray(copied, from), replacement);
    copied = spans[i + 1] ?? from;
  }
  parts.push(bytes.subarray(copied, end));
  return Buffer.concat(parts);
}

/** Occurrences in the order found, overlapping ones joined, as flat [from, to) pairs. */
function createSpans(): { readonly add: (from: number, to: number) => void; readonly done: () => number[] } {
  const spans: number[] = [];
  let to = -1;
  return {
    add: (start, end) => {
      if (start < to) to = Math.max(to, end);
      else {
        if (spans.length > 0) spans.push(to);
        spans.push(start);
        to = end;
      }
    },
    done: () => {
      if (spans.length > 0) spans.push(to);
      return spans;
    },
  };
}

function bytesAt(bytes: Uint8Array, pattern: Uint8Array, start: number): boolean {
  for (let i = 0; i < pattern.length; i++) if (bytes[start + i] !== pattern[i]) return false;
  return true;
}

/** A hash of the SEARCH_BLOCK_CHARS characters (or bytes) that end a window. */
function hashOf(a: number, b: number, c: number): number {
  return Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b), 0xc2b2ae35) >>> (32 - TABLE_BITS);
}
