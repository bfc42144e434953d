// Every spelling of a secret value the masker looks for: the value itself, its JSON escape, and the
// common encodings an agent may print it in. A base64 spelling must match inside a longer base64
// text wherever the value starts in it, so only characters fully determined by the value's own
// bytes are kept; a spelling shorter than MIN_MASKED_VALUE_LENGTH would mask innocent text.

import { MAX_ENCODED_VALUE_BYTES, MIN_MASKED_VALUE_LENGTH } from "./limits.js";

/** The value's spellings, the value first, each at least MIN_MASKED_VALUE_LENGTH long, without repeats. */
export function spellingsOf(value: string): string[] {
  if (value.length < MIN_MASKED_VALUE_LENGTH) return [];
  // As it appears inside JSON (and Go's %q) when quoted by someone else.
  const written = [value, JSON.stringify(value).slice(1, -1)];
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > MAX_ENCODED_VALUE_BYTES) return [...new Set(written)];
  const hex = bytes.toString("hex");
  const spellings = [
    ...written,
    ...base64Spellings(bytes),
    hex,
    hex.toUpperCase(),
    ...uriComponent(value),
    // A form body or query string built by URLSearchParams (a space is "+", more is escaped).
    new URLSearchParams({ v: value }).toString().slice(2),
    hex.replace(/../g, "%$&"),
    hex.toUpperCase().replace(/../g, "%$&"),
  ];
  return [...new Set(spellings)].filter((spelling) => spelling.length >= MIN_MASKED_VALUE_LENGTH);
}

/**
 * The value's bytes in base64 and base64url when they start 0, 1 or 2 bytes into a group: the
 * characters no neighbouring byte changes, and, for when the value ends the encoded text, those
 * followed by the last partial character with and without "=" padding.
 */
function base64Spellings(bytes: Buffer): string[] {
  const spellings: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Characters are 6 bits: the first that starts at or after the value's first bit, up to the
    // last that ends at or before its last bit.
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const inner = encoded.slice(first, end);
    const last = encoded.slice(first);
    for (const spelling of [inner, last, last.replace(/=+$/, "")]) spellings.push(spelling, spelling.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return spellings;
}

/** encodeURIComponent's spelling; none for a value it refuses (one with a lone surrogate). */
function uriComponent(value: string): string[] {
  try {
    return [encodeURIComponent(value)];
  } catch {
    return [];
  }
}
