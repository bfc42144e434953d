// tomlValue's text is what codex reads after `-c key=`: these tests read it back the way codex does
// (as the TOML document `_x_ = <text>`, here with smol-toml's parse) and demand the value exactly.

import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { type TomlValue, tomlValue } from "./toml-value.js";

/** The value codex gets from `-c key=<text>`: the text parsed as `_x_ = <text>`, trimmed as codex trims it. */
const readBack = (text: string): unknown => parse(`_x_ = ${text.trim()}`)["_x_"];

/** Values that break TOML pasted together from text: quotes, escapes, brackets, comments, line breaks. */
const HOSTILE: Record<string, string> = {
  "double quotes": 'Say "hi" and ""',
  "triple quotes": "\"\"\"x\"\"\" and '''y'''",
  "single quotes": "it's 'quoted'",
  "a quote that closes the string early": 'x" , model_provider = "evil',
  backslashes: "C:\\Users\\me\\ and a trailing \\",
  "escapes written out, which must stay text": '\\n \\t \\u0041 \\U0001F600 \\x41 \\e \\"',
  "a newline": "first line\nsecond line",
  "a new table after a newline": '"\n[model_providers.evil]\nbase_url = "http://evil"\n',
  "CR and CRLF": "a\rb\r\nc",
  tabs: "\tcolumn\tcolumn\t",
  "every C0 control character and DEL": [...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), "\u007f"].join(""),
  "C1 control characters": "\u0080\u0085\u009b\u009f",
  "a NUL alone": "\u0000",
  "accents and CJK": "héllo wörld 日本語 한국어",
  "astral characters": "😀 𝕏 𐍈 🏳️‍🌈 👨‍👩‍👧",
  "right-to-left text and overrides": "مرحبا שלום \u202Eevil\u202C \u200F\u200E",
  "line and paragraph separators, BOM, zero-width": "a\u2028b\u2029c\uFEFFd\u200Be",
  "the last BMP characters": "\uFFFD\uFFFE\uFFFF",
  "closing brackets": "] ]] }",
  "opening brackets": "[ [[x]] {",
  "an array-of-tables header": "[[model_providers]]",
  "equals signs": "a = b == c",
  "a comment": "# not a comment",
  "commas and dots": "a, b. c,",
  "the empty string": "",
  "only spaces": "   ",
  "leading and trailing whitespace": "  \t padded \t  ",
  "a dollar and backticks": "$(id) `id` ${HOME}",
};

/** A long string with every hostile character in it, many times over. */
const LONG = Object.values(HOSTILE).join("|").repeat(2_000);

/** A fixed sequence of strings drawn from hostile pieces, so a run is repeatable. */
function hostileMixes(count: number): string[] {
  const pieces = [
    '"',
    "\\",
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u001b",
    "\u007f",
    "]",
    "[",
    "=",
    "#",
    "'",
    "😀",
    "\u05D0",
    "\u202E",
    "é",
    " ",
    "u0041",
    "{",
    "}",
    ",",
  ];
  // mulberry32: a small generator whose low bits are as random as its high ones.
  let seed = 0x2f6e2b1;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  return Array.from({ length: count }, () => Array.from({ length: next() % 24 }, () => pieces[next() % pieces.length]).join(""));
}

describe("tomlValue", () => {
  it.each(Object.entries(HOSTILE))("gives back %s exactly", (_name, value) => {
    expect(readBack(tomlValue(value))).toBe(value);
  });

  it("writes every string on one line: no raw line break, tab or control character reaches the argv word", () => {
    for (const value of [...Object.values(HOSTILE), LONG]) {
      expect(tomlValue(value)).not.toMatch(/[\u0000-\u001f\u007f]/);
    }
  });

  it("gives back a string of hundreds of thousands of characters exactly", () => {
    expect(LONG.length).toBeGreaterThan(500_000);
    expect(readBack(tomlValue(LONG))).toBe(LONG);
  });

  it("gives back a thousand mixes of hostile characters exactly", () => {
    const mixes = hostileMixes(1_000);
    expect(new Set(mixes).size).toBeGreaterThan(900);
    for (const value of mixes) expect(readBack(tomlValue(value)), JSON.stringify(value)).toBe(value);
  });

  it("writes a lone surrogate, which neither TOML nor UTF-8 can carry, as U+FFFD", () => {
    expect(readBack(tomlValue("a\uD800b\uDC00c"))).toBe("a\uFFFDb\uFFFDc");
    expect(readBack(tomlValue("\uD83D\uDE00"))).toBe("😀");
  });

  it("writes numbers and booleans as TOML numbers and booleans, an integer as an integer", () => {
    expect(tomlValue(0)).toBe("0");
    expect(tomlValue(5)).toBe("5");
    for (const value of [0, 7, -1, 1.5, true, false]) expect(readBack(tomlValue(value))).toBe(value);
  });

  it("writes a table inline on one line, with hostile strings in it, and gives it back exactly", () => {
    const table = {
      name: "agentcage",
      base_url: 'http://h/"a\\b]\n[x]=#',
      env_key: "KEY",
      request_max_retries: 0,
      nested: { list: ["a", "]", ""], empty: {}, none: [] },
    };
    const text = tomlValue(table);
    expect(text.startsWith("{")).toBe(true);
    expect(text).not.toContain("\n");
    expect(readBack(text)).toEqual(table);
  });

  it("quotes table keys that are not bare, and gives them back exactly", () => {
    const table = { "a.b": 1, "": "empty key", 'k"ey': "q", ключ: "v", "]": "[", "#": "=" };
    expect(readBack(tomlValue(table))).toEqual(table);
  });

  it("gives back arrays of strings, numbers and tables exactly", () => {
    const values: TomlValue[] = [[], [HOSTILE["a newline"] ?? "", "]"], [1, 2, 3], [{ a: "]" }, { b: [] }], [[["deep"]]]];
    for (const value of values) expect(readBack(tomlValue(value))).toEqual(value);
  });
});
