// Entry names reach errors and logs only through printableName: UTF-8 where it is well formed,
// \xNN for every other byte, JSON-quoted, with no raw control or invisible character left.

import { describe, expect, it } from "vitest";
import { printableName } from "./printable-name.js";

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("printableName", () => {
  it("quotes a plain name", () => {
    expect(printableName(utf8("out/answer.txt"))).toBe('"out/answer.txt"');
  });

  it("keeps well-formed multi-byte characters", () => {
    expect(printableName(utf8("café/日本/😀"))).toBe('"café/日本/😀"');
  });

  it("shows each byte outside well-formed UTF-8 as \\xNN", () => {
    expect(printableName(bytes(0x63, 0x61, 0x66, 0xe9))).toBe('"caf\\\\xe9"');
    expect(JSON.parse(printableName(bytes(0x61, 0xff, 0xfe, 0x62)))).toBe("a\\xff\\xfeb");
  });

  it("refuses overlong forms, encoded surrogates and code points past U+10FFFF", () => {
    expect(JSON.parse(printableName(bytes(0xc0, 0xaf)))).toBe("\\xc0\\xaf");
    expect(JSON.parse(printableName(bytes(0xe0, 0x80, 0xaf)))).toBe("\\xe0\\x80\\xaf");
    expect(JSON.parse(printableName(bytes(0xed, 0xa0, 0x80)))).toBe("\\xed\\xa0\\x80");
    expect(JSON.parse(printableName(bytes(0xf4, 0x90, 0x80, 0x80)))).toBe("\\xf4\\x90\\x80\\x80");
  });

  it("shows a truncated sequence byte by byte and resumes after it", () => {
    expect(JSON.parse(printableName(bytes(0xe6, 0x97, 0x41)))).toBe("\\xe6\\x97A");
  });

  it("escapes newlines, C1 controls, DEL and bidi overrides", () => {
    const printed = printableName(utf8("a\nb\u0085c\u007fd\u202ee\u2028f"));
    expect(printed).toBe('"a\\nb\\u0085c\\u007fd\\u202ee\\u2028f"');
    expect(JSON.parse(printed)).toBe("a\nb\u0085c\u007fd\u202ee\u2028f");
  });

  it("escapes an invisible character outside the BMP as a surrogate pair", () => {
    expect(printableName(utf8("x\u{E0001}"))).toBe('"x\\udb40\\udc01"');
  });

  it("reads only its own view of a larger buffer", () => {
    const whole = Buffer.from("skip-this/name\xff", "latin1");
    expect(JSON.parse(printableName(whole.subarray(10)))).toBe("name\\xff");
  });
});
