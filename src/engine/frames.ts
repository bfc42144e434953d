// Splits the Engine API's multiplexed attach stream (no TTY) into stdout and stderr payloads.
// Each frame is an 8-byte header [stream, 0, 0, 0, size (u32 BE)] then `size` bytes. A header that
// names no known stream, or a stream cut off mid-frame, breaks the protocol: it is reported, and
// nothing after it is trusted.

export const STDIN_FRAME = 0;
export const STDOUT_FRAME = 1;
export const STDERR_FRAME = 2;

export type FrameSink = (stream: number, payload: Uint8Array) => void;

/** Feed it chunks as they come; call `end()` when the stream ends. */
export type FrameDemuxer = ((chunk: Uint8Array) => void) & { readonly end: () => void };

/**
 * A streaming demultiplexer: payloads are passed on without copying where possible. `onBroken`
 * hears, once, why the stream cannot be read as frames; after it nothing more is passed on.
 */
export function createFrameDemuxer(sink: FrameSink, onBroken: (why: string) => void = () => undefined): FrameDemuxer {
  const header = new Uint8Array(8);
  let headerFilled = 0;
  let stream = 0;
  let remaining = 0;
  let broken = false;
  let frames = 0;
  const breakWith = (why: string): void => {
    if (broken) return;
    broken = true;
    onBroken(why);
  };
  const push = (chunk: Uint8Array): void => {
    let offset = 0;
    while (offset < chunk.length && !broken) {
      if (remaining === 0 && headerFilled < 8) {
        const take = Math.min(8 - headerFilled, chunk.length - offset);
        header.set(chunk.subarray(offset, offset + take), headerFilled);
        headerFilled += take;
        offset += take;
        if (headerFilled < 8) return;
        stream = header[0] as number;
        remaining = new DataView(header.buffer).getUint32(4, false);
        if ((stream !== STDIN_FRAME && stream !== STDOUT_FRAME && stream !== STDERR_FRAME) || header[1] !== 0 || header[2] !== 0 || header[3] !== 0) {
          breakWith(`frame ${frames + 1} has the header [${Array.from(header.subarray(0, 4)).join(", ")}], which names no stream (1 stdout, 2 stderr)`);
          return;
        }
        frames += 1;
        headerFilled = remaining === 0 ? 0 : 8;
        continue;
      }
      const take = Math.min(remaining, chunk.length - offset);
      sink(stream, chunk.subarray(offset, offset + take));
      offset += take;
      remaining -= take;
      if (remaining === 0) headerFilled = 0;
    }
  };
  return Object.assign(push, {
    end: (): void => {
      if (headerFilled > 0 && headerFilled < 8) breakWith(`the stream ended inside the header of frame ${frames + 1} (${headerFilled} of 8 bytes)`);
      else if (remaining > 0) breakWith(`the stream ended inside frame ${frames}, ${remaining} bytes short`);
    },
  });
}
