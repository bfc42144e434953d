// The one place a path's raw bytes become text for an error message or a log line.
// Invariant: the result is a JSON string literal that never holds a raw control, line-separator or
// invisible format (bidi) character, and every byte that is not well-formed UTF-8 shows as \xNN.

/**
 * `bytes` decoded as UTF-8 with each byte outside a well-formed sequence written as `\xNN`, then
 * quoted with JSON.stringify; DEL, C1 controls, U+2028/9 and format characters are escaped as
 * `\uXXXX` so the result still parses as JSON.
 */
export function printableName(bytes: Uint8Array): string {
  let text = "";
  let runStart = 0;
  let index = 0;
  while (index < bytes.length) {
    const length = wellFormedLength(bytes, index);
    if (length > 0) {
      index += length;
      continue;
    }
    text += `${decodeUtf8(bytes, runStart, index)}\\x${hex(bytes[index] ?? 0, 2)}`;
    index += 1;
    runStart = index;
  }
  text += decodeUtf8(bytes, runStart, index);
  return JSON.stringify(text).replace(INVISIBLE, (character) => {
    let escaped = "";
    for (let unit = 0; unit < character.length; unit += 1) escaped += `\\u${hex(character.charCodeAt(unit), 4)}`;
    return escaped;
  });
}

const INVISIBLE = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, "0");
}

function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  return start === end ? "" : Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("utf8");
}

/** Length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7), or 0 if there is none. */
function wellFormedLength(bytes: Uint8Array, index: number): number {
  const first = bytes[index] ?? 0;
  const within = (offset: number, low = 0x80, high = 0xbf): boolean => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first <= 0x7f) return 1;
  if (first >= 0xc2 && first <= 0xdf) return within(1) ? 2 : 0;
  if (first === 0xe0) return within(1, 0xa0) && within(2) ? 3 : 0;
  if (first === 0xed) return within(1, 0x80, 0x9f) && within(2) ? 3 : 0;
  if (first >= 0xe1 && first <= 0xef) return within(1) && within(2) ? 3 : 0;
  if (first === 0xf0) return within(1, 0x90) && within(2) && within(3) ? 4 : 0;
  if (first >= 0xf1 && first <= 0xf3) return within(1) && within(2) && within(3) ? 4 : 0;
  if (first === 0xf4) return within(1, 0x80, 0x8f) && within(2) && within(3) ? 4 : 0;
  return 0;
}
