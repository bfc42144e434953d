// The one-pass search finds what a search pattern by pattern finds, overlapping occurrences
// merged, on texts made to be full of near misses.

import { describe, expect, it } from "vitest";
import { MIN_MASKED_VALUE_LENGTH } from "./limits.js";
import { createByteSearch, createSearch, replaceByteSpans, replaceSpans, SEARCH_BLOCK_CHARS } from "./search.js";

/** What the search must return: at each place the longest pattern there, overlapping ones joined. */
function slowly(text: string, patterns: readonly string[], replacement: string): string {
  const spans: [number, number][] = [];
  for (let start = 0; start < text.length; start++) {
    const length = Math.max(0, ...patterns.filter((p) => p.length >= SEARCH_BLOCK_CHARS && text.startsWith(p, start)).map((p) => p.length));
    if (length === 0) continue;
    const last = spans.at(-1);
    if (last !== undefined && start < last[1]) last[1] = Math.max(last[1], start + length);
    else spans.push([start, start + length]);
  }
  let result = "";
  let copied = 0;
  for (const [from, to] of spans) {
    result += text.slice(copied, from) + replacement;
    copied = to;
  }
  return result + text.slice(copied);
}

/** The text with what `patterns` find in it replaced by "#". */
function hidden(patterns: readonly string[], text: string): string {
  return replaceSpans(text, createSearch(patterns)(text), "#");
}

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 2 ** 32) * below);
  };
}

describe("createSearch", () => {
  it("finds what a search pattern by pattern finds, on texts full of near misses", () => {
    const next = random(7);
    const spell = (length: number, alphabet: string): string => Array.from({ length }, () => alphabet[next(alphabet.length)]).join("");
    for (let round = 0; round < 400; round++) {
      const alphabet = ["ab", "abc-", "abcdefgh%=", "aé😀b"][round % 4] ?? "ab";
      const patterns = Array.from({ length: 1 + next(12) }, () => spell(SEARCH_BLOCK_CHARS + next(round % 5 === 0 ? 300 : 10), alphabet));
      const text = spell(next(600), alphabet) + (patterns[0] ?? "") + spell(next(50), alphabet);
      expect(hidden(patterns, text), `round ${round}`).toBe(slowly(text, patterns, "#"));
    }
  });

  it("joins occurrences that overlap and keeps touching ones apart", () => {
    const patterns = ["abcdef", "defghi", "ghijkl"];
    expect(createSearch(patterns)("_abcdefghijkl_")).toEqual([1, 13]);
    expect(hidden(patterns, "_abcdefghijkl_")).toBe("_#_");
    expect(hidden(patterns, "_abcdefabcdef_")).toBe("_##_");
  });

  it("takes the longest pattern that starts at a place", () => {
    expect(hidden(["secret", "secret-and-more"], "x secret-and-more y secret z")).toBe("x # y # z");
  });

  it("returns the same text when nothing matches, or nothing is looked for", () => {
    const text = "nothing to hide here";
    expect(createSearch(["absent-value"])(text)).toEqual([]);
    expect(createSearch([])(text)).toEqual([]);
    expect(replaceSpans(text, [], "#")).toBe(text);
  });

  it("is never asked for a pattern shorter than its block", () => {
    expect(MIN_MASKED_VALUE_LENGTH).toBeGreaterThanOrEqual(SEARCH_BLOCK_CHARS);
  });
});

describe("createByteSearch", () => {
  /** The text's UTF-8 with what the patterns' UTF-8 finds in it replaced by "#", read back as latin1 (one character a byte). */
  function hiddenBytes(patterns: readonly string[], text: string): string {
    const bytes = Buffer.from(text, "utf8");
    const spans = createByteSearch(patterns.map((pattern) => Buffer.from(pattern, "utf8")))(bytes);
    return replaceByteSpans(bytes, spans, Buffer.from("#")).toString("latin1");
  }
  const latin1 = (text: string): string => Buffer.from(text, "utf8").toString("latin1");

  it("finds in bytes what a search pattern by pattern finds in their characters, on bytes full of near misses", () => {
    const next = random(11);
    const spell = (length: number, alphabet: string): string => Array.from({ length }, () => alphabet[next(alphabet.length)]).join("");
    for (let round = 0; round < 400; round++) {
      const alphabet = ["ab", "abc-", "abcdefgh%=", "aé\u00ffb"][round % 4] ?? "ab";
      const patterns = Array.from({ length: 1 + next(12) }, () => spell(SEARCH_BLOCK_CHARS + next(round % 5 === 0 ? 300 : 10), alphabet));
      const text = spell(next(600), alphabet) + (patterns[0] ?? "") + spell(next(50), alphabet);
      const expected = slowly(latin1(text), patterns.map(latin1), "#");
      expect(hiddenBytes(patterns, text), `round ${round}`).toBe(expected);
    }
  });

  it("joins occurrences that overlap, and hands back the very bytes it was given when nothing matches", () => {
    expect(hiddenBytes(["abcdef", "defghi", "ghijkl"], "_abcdefghijkl_ _abcdefabcdef_")).toBe("_#_ _##_");
    const bytes = Buffer.from("nothing to hide here");
    const kept = replaceByteSpans(bytes, createByteSearch([Buffer.from("absent-value")])(bytes), Buffer.from("#"));
    expect(kept.buffer).toBe(bytes.buffer);
    expect(createByteSearch([])(bytes)).toEqual([]);
  });
});
