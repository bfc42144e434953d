// The stream masker: masks registered secret values in bytes passing through (a response streaming
// back to an agent), holding back only what a later chunk could still complete (maskSettledBytes:
// a tail that begins a spelling, bounded). A chunk with no such tail and nothing to mask is passed
// on as the same memory, uncopied. Invariant: no byte leaves before it was masked, including a
// value split across chunks.

import { Transform, type TransformCallback } from "node:stream";
import type { Masker } from "./masker.js";

/** Bytes through a masker, a chunk at a time: what each write answers may be sent at once; end answers the rest. */
export type StreamMasker = {
  /** The bytes settled by `chunk` (often `chunk` itself, none when it only begins a spelling), masked. */
  readonly write: (chunk: Uint8Array) => Buffer;
  /** What was held back, masked: the stream has ended. */
  readonly end: () => Buffer;
};

const NOTHING = Buffer.alloc(0);

/** A stream masker over `masker`'s values; what it answers may share the memory of what it was given. */
export function createStreamMasker(masker: Masker): StreamMasker {
  let unsettled: Buffer = NOTHING;
  return {
    write: (chunk) => {
      // Only a held tail, at most twice the longest spelling, is ever copied to meet the next chunk.
      const settled = masker.maskSettledBytes(unsettled.length === 0 ? chunk : Buffer.concat([unsettled, chunk]));
      unsettled = settled.unsettled;
      return settled.masked;
    },
    end: () => {
      const rest = unsettled.length === 0 ? NOTHING : masker.maskDeep(new Uint8Array(unsettled));
      unsettled = NOTHING;
      return Buffer.from(rest.buffer, rest.byteOffset, rest.byteLength);
    },
  };
}

/** createStreamMasker as a Transform stream. */
export function maskingStream(masker: Masker): Transform {
  const stream = createStreamMasker(masker);
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const masked = stream.write(chunk);
      callback(null, masked.length === 0 ? undefined : masked);
    },
    flush(callback: TransformCallback) {
      const rest = stream.end();
      callback(null, rest.length === 0 ? undefined : rest);
    },
  });
}
