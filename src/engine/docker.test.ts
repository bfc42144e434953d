// The Docker attach stream as three streams: payloads reach stdout and stderr, and a stream that
// breaks the frame protocol (an unknown stream type, a frame cut short) is reported and ends both.

import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { splitAttachStream } from "./attach-stream.js";
import { STDERR_FRAME, STDOUT_FRAME } from "./frames.js";

function frame(stream: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

async function read(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe("splitAttachStream", () => {
  it("passes each frame's payload to its stream", async () => {
    const socket = new PassThrough();
    const streams = splitAttachStream(socket);
    socket.end(Buffer.concat([frame(STDOUT_FRAME, "out\n"), frame(STDERR_FRAME, "err\n"), frame(STDOUT_FRAME, "more\n")]));
    expect(await Promise.all([read(streams.stdout), read(streams.stderr)])).toEqual(["out\nmore\n", "err\n"]);
  });

  it("reports a frame of an unknown stream and ends both outputs", async () => {
    const socket = new PassThrough();
    const streams = splitAttachStream(socket);
    socket.write(Buffer.concat([frame(STDOUT_FRAME, "before\n"), frame(9, "bogus"), frame(STDOUT_FRAME, "after\n")]));
    expect(await streams.broken).toContain("which names no stream");
    expect(await read(streams.stdout)).toBe("before\n");
  });

  it("reports a stream cut off mid-frame", async () => {
    const socket = new PassThrough();
    const streams = splitAttachStream(socket);
    socket.end(frame(STDOUT_FRAME, "cut off here").subarray(0, 12));
    expect(await streams.broken).toBe("the stream ended inside frame 1, 8 bytes short");
  });
});
