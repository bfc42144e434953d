// The masker hides registered values anywhere in text, bytes and JSON-like values, longest first,
// in their escaped spellings too; values too short to be credentials are ignored.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createMasker, MAX_ENCODED_VALUE_BYTES, MIN_MASKED_VALUE_LENGTH, REDACTED, type Masker } from "./index.js";

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

describe("createMasker on encoded secrets", () => {
  // Its base64 has "+" or "/" at every alignment, so base64url differs; 20 bytes end a group at
  // one alignment and leave one or two padding characters at the others.
  const SECRET = "sk-live~>?0123456789";
  const bytes = Buffer.from(SECRET);
  const noise = (length: number): Buffer => createHash("sha256").update(`noise-${length}`).digest().subarray(0, length);
  const masker = createMasker([SECRET]);

  // The characters before the secret's first whole character, and from its last whole one on,
  // carry bits of the neighbours too; everything between goes.
  describe.each([0, 1, 2, 3, 4, 5])("with %i bytes before it", (before) => {
    const first = Math.ceil((before * 8) / 6);
    it.each([0, 1, 2, 7])("and %i after, in base64, with and without padding", (after) => {
      const encoded = Buffer.concat([noise(before), bytes, noise(after)]).toString("base64");
      const end = after === 0 ? encoded.length : Math.floor(((before + bytes.length) * 8) / 6);
      expect(masker.mask(encoded)).toBe(`${encoded.slice(0, first)}${REDACTED}${encoded.slice(end)}`);
      const unpadded = encoded.replace(/=+$/, "");
      expect(masker.mask(unpadded)).toBe(`${unpadded.slice(0, first)}${REDACTED}${unpadded.slice(after === 0 ? unpadded.length : end)}`);
    });

    it.each([0, 1, 2, 7])("and %i after, in base64url", (after) => {
      const encoded = Buffer.concat([noise(before), bytes, noise(after)]).toString("base64url");
      expect(encoded).not.toBe(
        Buffer.concat([noise(before), bytes, noise(after)])
          .toString("base64")
          .replace(/=+$/, ""),
      );
      const end = after === 0 ? encoded.length : Math.floor(((before + bytes.length) * 8) / 6);
      expect(masker.mask(encoded)).toBe(`${encoded.slice(0, first)}${REDACTED}${encoded.slice(end)}`);
    });

    it("in hex, lower and upper case", () => {
      const hex = Buffer.concat([noise(before), bytes, noise(3)]).toString("hex");
      for (const spelled of [hex, hex.toUpperCase()]) {
        expect(masker.mask(spelled)).toBe(`${spelled.slice(0, 2 * before)}${REDACTED}${spelled.slice(2 * (before + bytes.length))}`);
      }
    });
  });

  it("in a URL, as encodeURIComponent and URLSearchParams write it", () => {
    const secret = "pa ss/wörd+&=?~!'()*";
    const urlMasker = createMasker([secret]);
    expect(urlMasker.mask(`https://host/?k=${encodeURIComponent(secret)}&b=1`)).toBe(`https://host/?k=${REDACTED}&b=1`);
    expect(urlMasker.mask(new URLSearchParams({ k: secret, b: "1" }).toString())).toBe(`k=${REDACTED}&b=1`);
  });

  it("with every byte percent-encoded, in lower and upper case", () => {
    const hex = bytes.toString("hex");
    expect(masker.mask(`?k=${hex.replace(/../g, "%$&")}&`)).toBe(`?k=${REDACTED}&`);
    expect(masker.mask(`?k=${hex.toUpperCase().replace(/../g, "%$&")}&`)).toBe(`?k=${REDACTED}&`);
  });

  it("in a byte array, as it masks text", () => {
    const encoded = Buffer.from(`b64 ${Buffer.concat([Buffer.from([0]), bytes]).toString("base64")} hex ${bytes.toString("hex")}\n`);
    expect(masker.maskDeep(encoded).toString()).toBe(`b64 AH${REDACTED} hex ${REDACTED}\n`);
  });

  it("reports as longest() its longest spelling, every byte percent-encoded", () => {
    expect(masker.longest()).toBe(3 * bytes.length);
    expect(createMasker(["wörd-ümlaut"]).longest()).toBe(3 * Buffer.byteLength("wörd-ümlaut"));
  });

  it("masks no encoded fragment shorter than MIN_MASKED_VALUE_LENGTH", () => {
    const short = createMasker(["abcdef"]);
    expect(short.mask("YWJjZGVm 616263646566 YWJj")).toBe(`${REDACTED} ${REDACTED} YWJj`);
  });

  it("masks a value longer than MAX_ENCODED_VALUE_BYTES only as written", () => {
    const long = `key-${"x".repeat(MAX_ENCODED_VALUE_BYTES)}`;
    const longMasker = createMasker([long]);
    expect(longMasker.longest()).toBe(long.length);
    expect(longMasker.mask(`a ${long} b`)).toBe(`a ${REDACTED} b`);
    expect(longMasker.mask(Buffer.from(long).toString("base64"))).toBe(Buffer.from(long).toString("base64"));
  });

  it("takes a value with a lone surrogate, which encodeURIComponent refuses", () => {
    const odd = createMasker(["sk-\ud800-0123456789"]);
    expect(odd.mask("x sk-\ud800-0123456789 y")).toBe(`x ${REDACTED} y`);
    expect(odd.mask(Buffer.from("sk-\ud800-0123456789").toString("hex"))).toBe(REDACTED);
  });

  it("hides overlapping occurrences as one", () => {
    const overlapping = createMasker(["abcdefgh", "fghijklm"]);
    expect(overlapping.mask("x abcdefghijklm y")).toBe(`x ${REDACTED} y`);
    expect(overlapping.mask("x abcdefghfghijklm y")).toBe(`x ${REDACTED}${REDACTED} y`);
  });
});

describe("maskSettled", () => {
  /** Feeds `text` `size` characters at a time, as a record stream does, and returns what it wrote. */
  function streamed(masker: Masker, text: string, size: number): { written: string; mostHeld: number } {
    let written = "";
    let unsettled = "";
    let mostHeld = 0;
    for (let at = 0; at < text.length; at += size) {
      const settled = masker.maskSettled(unsettled + text.slice(at, at + size));
      written += settled.masked;
      unsettled = settled.unsettled;
      mostHeld = Math.max(mostHeld, unsettled.length);
    }
    return { written: written + masker.mask(unsettled), mostHeld };
  }

  // A login file registered whole and by its lines, a value that extends another, and base64
  // whose last characters only the padding settles: each would show in part if the shorter
  // occurrence were masked before the longer one had arrived.
  const FILE = "[default]\nkey_id = AKIA0123456789\nsecret = wJalrXUtnFEMI/K7MDENG\n";
  const masker = createMasker([FILE, ...FILE.split("\n"), "sk-live-0123456789", "sk-live-0123456789-and-more"]);
  const text = [
    `whole ${FILE}`,
    `pct ${Buffer.from(FILE).toString("hex").replace(/../g, "%$&")}`,
    "extended sk-live-0123456789-and-more!",
    `b64 ${Buffer.from("sk-live-0123456789").toString("base64")}`,
    "end",
  ].join(" | ");

  it.each([1, 2, 3, 7, 64, text.length])("writes what mask writes, fed %i characters at a time", (size) => {
    const { written, mostHeld } = streamed(masker, text, size);
    expect(written).toBe(masker.mask(text));
    expect(written).toBe(`whole ${REDACTED} | pct ${REDACTED} | extended ${REDACTED}! | b64 ${REDACTED} | end`);
    expect(mostHeld).toBeLessThanOrEqual(2 * masker.longest());
  });

  it("settles all but the last longest() - 1 characters when nothing crosses the cut", () => {
    const plain = "x".repeat(500);
    expect(masker.maskSettled(plain)).toEqual({ masked: plain.slice(0, 501 - masker.longest()), unsettled: plain.slice(501 - masker.longest()) });
    expect(createMasker().maskSettled("anything")).toEqual({ masked: "anything", unsettled: "" });
  });

  it("never splits a surrogate pair", () => {
    const emoji = createMasker(["sk-live-0123"]);
    // The cut would fall between the two halves of the emoji.
    const cutAt = 100 - (emoji.longest() - 1);
    const text = `${"a".repeat(cutAt - 1)}😀${"b".repeat(100 - cutAt - 1)}`;
    const { masked, unsettled } = emoji.maskSettled(text);
    expect(masked).toBe("a".repeat(cutAt - 1));
    expect(unsettled.startsWith("😀")).toBe(true);
  });

  it("keeps what it holds bounded when overlapping occurrences chain on", () => {
    const run = createMasker(["bbbbbbbb"]);
    const { written, mostHeld } = streamed(run, `a${"b".repeat(10_000)}a`, 64);
    expect(mostHeld).toBeLessThanOrEqual(2 * run.longest());
    expect(written).toMatch(/^a(\[REDACTED\])+a$/);
  });
});

describe("maskSettledBytes", () => {
  // A response streaming through the egress proxy: bytes, cut anywhere, UTF-8 around the secret.
  const masker = createMasker(["sk-ant-api03-streamed-0123456789", "clé-secrète-ünïcode"]);
  const text = `é data: {"text":"sk-ant-api03-streamed-0123456789"} | ${Buffer.from("sk-ant-api03-streamed-0123456789").toString("base64")} | clé-secrète-ünïcode 😀 end`;
  const bytes = Buffer.from(text, "utf8");

  it.each([1, 2, 3, 7, 64, bytes.length])("writes what mask writes, fed %i bytes at a time", (size) => {
    const parts: Buffer[] = [];
    let unsettled: Buffer = Buffer.alloc(0);
    let mostHeld = 0;
    for (let at = 0; at < bytes.length; at += size) {
      const settled = masker.maskSettledBytes(Buffer.concat([unsettled, bytes.subarray(at, at + size)]));
      parts.push(settled.masked);
      unsettled = settled.unsettled;
      mostHeld = Math.max(mostHeld, unsettled.length);
    }
    parts.push(Buffer.from(masker.maskDeep(new Uint8Array(unsettled))));
    expect(Buffer.concat(parts).toString("utf8")).toBe(masker.mask(text));
    expect(masker.mask(text)).toBe(`é data: {"text":"${REDACTED}"} | ${REDACTED} | ${REDACTED} 😀 end`);
    expect(mostHeld).toBeLessThanOrEqual(2 * Buffer.byteLength("clé-secrète-ünïcode".repeat(3)));
  });

  it("settles every byte when no tail of them begins a spelling", () => {
    const key = "sk-ant-api03-streamed-0123456789";
    const events = Buffer.from(`event: a\ndata: {"text":"${key}"}\n\nevent: b\ndata: {`);
    const settled = createMasker([key]).maskSettledBytes(events);
    expect(settled.masked.toString()).toBe(`event: a\ndata: {"text":"${REDACTED}"}\n\nevent: b\ndata: {`);
    expect(settled.unsettled.length).toBe(0);
  });

  it("holds back the tail that begins a spelling, from its first byte, a line feed in it or not", () => {
    const key = "sk-ant-api03-streamed-0123456789";
    const oneLine = createMasker([key]);
    for (const start of ["s", "sk-ant-ap", "%7", Buffer.from(key).toString("hex").slice(0, 9)]) {
      const settled = oneLine.maskSettledBytes(Buffer.from(`event: b\ndata: {"text":"${start}`));
      expect(settled.masked.toString(), start).toBe('event: b\ndata: {"text":"');
      expect(settled.unsettled.toString(), start).toBe(start);
    }
    const twoLines = createMasker(["line-one-secret\nline-two-secret"]);
    for (const start of ["line-one-sec", "line-one-secret\n", "line-one-secret\nline"]) {
      expect(twoLines.maskSettledBytes(Buffer.from(`${"x\ny\n".repeat(50)}${start}`)).unsettled.toString(), start).toBe(start);
    }
  });

  it("settles everything when nothing is registered", () => {
    const settled = createMasker().maskSettledBytes(bytes);
    expect(settled.masked.equals(bytes)).toBe(true);
    expect(settled.unsettled.length).toBe(0);
  });
});
