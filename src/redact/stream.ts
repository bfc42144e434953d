// The stream masker: a Transform that masks registered secret values in bytes passing through (a
// response streaming back to an agent), holding back only what a later chunk could still complete.
// Invariant: no byte leaves before it was masked, including a value split across chunks.

import { Transform, type TransformCallback } from "node:stream";
import type { Masker } from "./masker.js";

/** A stream that masks `masker`'s values in the bytes passing through, holding back only what a later chunk could still complete. */
export function maskingStream(masker: Masker): Transform {
  let unsettled: Buffer = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const settled = masker.maskSettledBytes(unsettled.length === 0 ? chunk : Buffer.concat([unsettled, chunk]));
      // No spelling of a credential holds a line break (run.ts refuses whitespace in one), so what
      // ends a line is settled too: an event's last line is never held back waiting for the next.
      const lineEnd = settled.unsettled.lastIndexOf(0x0a) + 1;
      const out =
        lineEnd === 0 ? settled.masked : Buffer.concat([settled.masked, Buffer.from(masker.maskDeep(new Uint8Array(settled.unsettled.subarray(0, lineEnd))))]);
      unsettled = settled.unsettled.subarray(lineEnd);
      callback(null, out.length === 0 ? undefined : out);
    },
    flush(callback: TransformCallback) {
      callback(null, unsettled.length === 0 ? undefined : masker.maskDeep(new Uint8Array(unsettled)));
    },
  });
}
