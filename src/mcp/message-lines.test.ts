// JSON-RPC lines out of a byte stream at every chunk size: a line within the limit comes out whole;
// one over it comes out as its size and its top-level id (wherever in the object it sits), and the
// lines after it come out as if it had not been there.

import { describe, expect, it } from "vitest";
import { type MessageLine, messageLines } from "./message-lines.js";

const LIMIT = 64;

/** Every line of `text` fed at `size` bytes a chunk (0: all at once). */
function linesOf(text: string, size: number, limit = LIMIT): MessageLine[] {
  const reader = messageLines(limit);
  const bytes = Buffer.from(text);
  const step = size === 0 ? bytes.length : size;
  const lines: MessageLine[] = [];
  for (let at = 0; at < bytes.length; at += step) lines.push(...reader.push(bytes.subarray(at, at + step)));
  return lines;
}

const long = "x".repeat(200);
const SIZES = [1, 2, 3, 7, 64, 0];

describe("messageLines", () => {
  it.each(SIZES)("keeps lines within the limit whole, \\r\\n too, at %i bytes a chunk", (size) => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n{"jsonrpc":"2.0","method":"é"}\n`;
    expect(linesOf(text, size)).toEqual([
      { kind: "line", text: '{"jsonrpc":"2.0","id":1,"method":"ping"}' },
      { kind: "line", text: '{"jsonrpc":"2.0","method":"é"}' },
    ]);
  });

  it.each(SIZES)("counts a line over the limit, reads its id first or last, and goes on, at %i bytes a chunk", (size) => {
    const first = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"prompt":"${long}"}}`;
    const last = `{"method":"tools/call","params":{"id":"inner","prompt":"${long}","a":[{"id":9}]},"jsonrpc":"2.0","id":"req-\\"8\\""}`;
    const quoted = `{"note":"\\"","id":5,"params":"${long}"}`;
    const text = `${first}\n${last}\n${quoted}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n`;
    expect(linesOf(text, size)).toEqual([
      { kind: "oversized", bytes: Buffer.byteLength(first), id: 7 },
      { kind: "oversized", bytes: Buffer.byteLength(last), id: 'req-"8"' },
      { kind: "oversized", bytes: Buffer.byteLength(quoted), id: 5 },
      { kind: "line", text: '{"jsonrpc":"2.0","id":3,"method":"ping"}' },
    ]);
  });

  it.each(SIZES)("gives no id for a notification, a nested one, an id that is no id, or a line that is no JSON, at %i bytes a chunk", (size) => {
    const lines = [
      `{"jsonrpc":"2.0","method":"notifications/message","params":{"id":5,"data":"${long}"}}`,
      `{"jsonrpc":"2.0","id":{"n":1},"method":"x","params":"${long}"}`,
      `{"jsonrpc":"2.0","id":null,"method":"x","params":"${long}"}`,
      `{"jsonrpc":"2.0","params":"${long}","id":"${"i".repeat(300)}"}`,
      `[{"id":1,"params":"${long}"}]`,
      `${long}`,
    ];
    expect(linesOf(`${lines.join("\n")}\n`, size)).toEqual(lines.map((line) => ({ kind: "oversized", bytes: Buffer.byteLength(line) })));
  });

  it("reads a key written with escapes as the key it is, and takes a line of exactly the limit as within it", () => {
    const text = `{"\\u0069d":42,"params":"${long}"}\n`;
    expect(linesOf(text, 5)).toEqual([{ kind: "oversized", bytes: Buffer.byteLength(text) - 1, id: 42 }]);
    // Exactly at the limit is within it; one byte more is not.
    const at = `"${"y".repeat(LIMIT - 2)}"`;
    expect(linesOf(`${at}\n${at}z\n`, 0)).toEqual([
      { kind: "line", text: at },
      { kind: "oversized", bytes: LIMIT + 1 },
    ]);
  });
});
