// Stderr is kept up to a cap and counted beyond it; what is kept is a copy, decoded as UTF-8.

import { describe, expect, it } from "vitest";
import { createCappedBytes } from "./capped-bytes.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("createCappedBytes", () => {
  it("keeps everything under the cap and counts it", () => {
    const capped = createCappedBytes(16);
    capped.push(text("hello "));
    capped.push(text("world"));
    expect({ text: capped.text(), total: capped.totalBytes() }).toEqual({ text: "hello world", total: 11 });
  });

  it("keeps the first capBytes and counts the rest", () => {
    const capped = createCappedBytes(8);
    capped.push(text("abcde"));
    capped.push(text("fghij"));
    capped.push(text("klmno"));
    expect({ text: capped.text(), total: capped.totalBytes() }).toEqual({ text: "abcdefgh", total: 15 });
  });

  it("keeps its own copy of a chunk the producer reuses", () => {
    const capped = createCappedBytes(8);
    const buffer = text("abc");
    capped.push(buffer);
    buffer.fill(0x7a);
    expect(capped.text()).toBe("abc");
  });

  it("replaces malformed bytes when decoding", () => {
    const capped = createCappedBytes(8);
    capped.push(new Uint8Array([0x6f, 0x6b, 0xff]));
    expect(capped.text()).toBe("ok\uFFFD");
  });
});
