// One pass over a text for many patterns at once (Wu–Manber): a table says how far the window may
// jump for the last three characters it ends on, so the cost hardly grows with the number of
// patterns (every secret's every spelling), and only windows whose end could end a pattern's start
// are compared. Every occurrence is found, overlapping ones too, and overlapping ones are joined:
// no character of any occurrence is left out of the spans.

/** Characters hashed per step; every pattern must be at least this long. */
export const SEARCH_BLOCK_CHARS = 3;
const TABLE_BITS = 16;

/**
 * Where any of the patterns occurs in a text, as flat [from, to) pairs in order, occurrences that
 * overlap joined into one span; patterns shorter than SEARCH_BLOCK_CHARS are never found.
 */
export type Search = (text: string) => number[];

export function createSearch(patterns: Iterable<string>): Search {
  const usable = [...patterns].filter((pattern) => pattern.length >= SEARCH_BLOCK_CHARS);
  if (usable.length === 0) return () => [];
  // The window is as long as the shortest pattern; each pattern is known by its first `window` characters.
  const window = usable.reduce((shortest, pattern) => Math.min(shortest, pattern.length), Infinity);
  const shifts = new Uint8Array(1 << TABLE_BITS).fill(Math.min(255, window - SEARCH_BLOCK_CHARS + 1));
  const candidates = new Array<string[] | undefined>(1 << TABLE_BITS);
  // Longest first, so the longest occurrence that starts at a place is the one taken.
  for (const pattern of usable.sort((a, b) => b.length - a.length)) {
    // A block further than 255 characters from the window's end cannot lower a shift below 255.
    for (let end = Math.max(SEARCH_BLOCK_CHARS - 1, window - 256); end < window; end++) {
      const block = blockAt(pattern, end);
      shifts[block] = Math.min(shifts[block] ?? 0, window - 1 - end);
    }
    (candidates[blockAt(pattern, window - 1)] ??= []).push(pattern);
  }
  return (text) => {
    const spans: number[] = [];
    let to = -1;
    for (let end = window - 1; end < text.length; ) {
      const block = blockAt(text, end);
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
        if (start < to) to = Math.max(to, start + pattern.length);
        else {
          if (spans.length > 0) spans.push(to);
          spans.push(start);
          to = start + pattern.length;
        }
        break;
      }
      end += 1;
    }
    if (spans.length > 0) spans.push(to);
    return spans;
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

/** A hash of the SEARCH_BLOCK_CHARS characters that end at `end`. */
function blockAt(text: string, end: number): number {
  const a = text.charCodeAt(end - 2);
  const b = text.charCodeAt(end - 1);
  const c = text.charCodeAt(end);
  return Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b), 0xc2b2ae35) >>> (32 - TABLE_BITS);
}
