// Splits the Engine API's multiplexed attach stream (no TTY) into stdout and stderr payloads.
// Each frame is an 8-byte header [stream, 0, 0, 0, size (u32 BE)] then `size` bytes.

export const STDOUT_FRAME = 1;
export const STDERR_FRAME = 2;

export type FrameSink = (stream: number, payload: Uint8Array) => void;

/** A streaming demultiplexer: feed it chunks as they come; payloads are passed on without copying where possible. */
export function createFrameDemuxer(sink: FrameSink): (chunk: Uint8Array) => void {
  const header = new Uint8Array(8);
  let headerFilled = 0;
  let stream = 0;
  let remaining = 0;
  return (chunk) => {
    let offset = 0;
    while (offset < chunk.length) {
      if (remaining === 0) {
        const take = Math.min(8 - headerFilled, chunk.length - offset);
        header.set(chunk.subarray(offset, offset + take), headerFilled);
        headerFilled += take;
        offset += take;
        if (headerFilled < 8) return;
        headerFilled = 0;
        stream = header[0] as number;
        remaining = new DataView(header.buffer).getUint32(4, false);
        continue;
      }
      const take = Math.min(remaining, chunk.length - offset);
      sink(stream, chunk.subarray(offset, offset + take));
      offset += take;
      remaining -= take;
    }
  };
}
