// The stream masker: a Transform that masks registered secret values in bytes passing through (a
// response streaming back to an agent), holding back only what a later chunk could still complete
// (maskSettledBytes: a bounded tail, none of it before the last line feed when no spelling holds
// one). Invariant: no byte leaves before it was masked, including a value split across chunks.

import { Transform, type TransformCallback } from "node:stream";
import type { Masker } from "./masker.js";

/** A stream that masks `masker`'s values in the bytes passing through; what it passes on may share the memory of what it was given. */
export function maskingStream(masker: Masker): Transform {
  let unsettled: Buffer = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const settled = masker.maskSettledBytes(unsettled.length === 0 ? chunk : Buffer.concat([unsettled, chunk]));
      unsettled = settled.unsettled;
      callback(null, settled.masked.length === 0 ? undefined : settled.masked);
    },
    flush(callback: TransformCallback) {
      callback(null, unsettled.length === 0 ? undefined : masker.maskDeep(new Uint8Array(unsettled)));
    },
  });
}
