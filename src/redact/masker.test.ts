// The masker hides registered values anywhere in text, bytes and JSON-like values, longest first,
// in their escaped spellings too; values too short to be credentials are ignored.

import { describe, expect, it } from "vitest";
import { createMasker, MIN_MASKED_VALUE_LENGTH, REDACTED } from "./index.js";

describe("createMasker", () => {
  it("masks every occurrence of a registered value", () => {
    const masker = createMasker(["hunter2-password"]);
    expect(masker.mask("a hunter2-password b hunter2-password")).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it("masks values registered later with add", () => {
    const masker = createMasker();
    masker.add("sk-added-later");
    expect(masker.mask("key=sk-added-later")).toBe(`key=${REDACTED}`);
  });

  it("hides the longer of two secrets whole when one contains the other", () => {
    const masker = createMasker(["secret", "secret-and-more"]);
    expect(masker.mask("x secret-and-more y secret z")).toBe(`x ${REDACTED} y ${REDACTED} z`);
  });

  it("ignores values shorter than MIN_MASKED_VALUE_LENGTH", () => {
    const short = "a".repeat(MIN_MASKED_VALUE_LENGTH - 1);
    const long = "b".repeat(MIN_MASKED_VALUE_LENGTH);
    const masker = createMasker([short, long, ""]);
    expect(masker.mask(`${short} ${long}`)).toBe(`${short} ${REDACTED}`);
  });

  it("leaves text alone when nothing is registered", () => {
    expect(createMasker().mask("nothing to hide")).toBe("nothing to hide");
  });

  it("masks strings nested in objects and arrays, and keys", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    const value = {
      error: "auth failed for sk-live-0123456789",
      count: 3,
      ok: false,
      none: null,
      nested: { list: ["plain", "Bearer sk-live-0123456789", 7], "sk-live-0123456789": "as a key" },
    };
    expect(masker.maskDeep(value)).toEqual({
      error: `auth failed for ${REDACTED}`,
      count: 3,
      ok: false,
      none: null,
      nested: { list: ["plain", `Bearer ${REDACTED}`, 7], [REDACTED]: "as a key" },
    });
    expect(value.error).toBe("auth failed for sk-live-0123456789");
  });

  it("masks a bare string and an array with maskDeep", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    expect(masker.maskDeep("x sk-live-0123456789")).toBe(`x ${REDACTED}`);
    expect(masker.maskDeep(["sk-live-0123456789", 1])).toEqual([REDACTED, 1]);
  });
});

describe("createMasker on what readers return", () => {
  it("masks a secret inside a Buffer or Uint8Array, byte for byte", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    const masked = masker.maskDeep({ bytes: Buffer.from("a sk-live-0123456789 b"), raw: new TextEncoder().encode("sk-live-0123456789") });
    expect(masked.bytes.toString()).toBe(`a ${REDACTED} b`);
    expect(Buffer.from(masked.raw).toString()).toBe(REDACTED);
  });

  it("masks an Error's message and objects without a prototype", () => {
    const masker = createMasker(["sk-live-0123456789"]);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { key: "sk-live-0123456789" });
    expect(masker.maskDeep(new Error("bad sk-live-0123456789")).message).toBe(`bad ${REDACTED}`);
    expect(masker.maskDeep(bare)).toEqual({ key: REDACTED });
  });

  it("masks the escaped spelling of a secret, as JSON or Go quote it", () => {
    const masker = createMasker(['pa"ss\\word-1']);
    expect(masker.mask(JSON.stringify({ v: 'pa"ss\\word-1' }))).toBe(`{"v":"${REDACTED}"}`);
  });
});
