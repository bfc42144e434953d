// Which characters make a patch's line read differently from what applies, one by one: each
// control and bidi character is found, tabs and CRLF line ends are not.

import { describe, expect, it } from "vitest";
import { holdsBidiOrControl } from "./bidi-or-control.js";

const CODES = [0x01, 0x07, 0x08, 0x0b, 0x0c, 0x0e, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f, 0x061c, 0x200e, 0x200f];
const BIDI = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];

describe("holdsBidiOrControl", () => {
  it.each([...CODES, ...BIDI].map((code) => [code.toString(16).padStart(4, "0"), code]))("finds U+%s inside a line", (_name, code) => {
    expect(holdsBidiOrControl(`+ok ${String.fromCharCode(code)} ok\n`)).toBe(true);
  });

  it("finds a carriage return that does not end a line", () => {
    expect(holdsBidiOrControl("+what reads\rwhat applies\n")).toBe(true);
    expect(holdsBidiOrControl("+ends with a lone CR\r")).toBe(true);
  });

  it("takes tabs, newlines, CRLF line ends and letters of any script as text", () => {
    expect(holdsBidiOrControl("+\tindented\r\n-old\r\n context שלום مرحبا 日本語 ✔\n")).toBe(false);
  });
});
