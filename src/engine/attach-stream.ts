// A hijacked attach (or exec) connection of Docker's as three streams: the frames of its output are
// split into stdout and stderr, and a reader that is full pauses the socket until it drains.

import { PassThrough, type Duplex } from "node:stream";
import type { ContainerStreams } from "./engine.js";
import { createFrameDemuxer, STDERR_FRAME, STDOUT_FRAME } from "./frames.js";

/** One hijacked attach connection as three streams; a full reader pauses the socket until it drains. */
export function splitAttachStream(socket: Duplex): ContainerStreams {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const resume = (): void => {
    if (!stdout.writableNeedDrain && !stderr.writableNeedDrain) socket.resume();
  };
  stdout.on("drain", resume);
  stderr.on("drain", resume);
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    stdout.end();
    stderr.end();
  };
  let reportBroken!: (why: string) => void;
  const broken = new Promise<string>((resolve) => (reportBroken = resolve));
  const demux = createFrameDemuxer(
    (kind, payload) => {
      const target = kind === STDOUT_FRAME ? stdout : kind === STDERR_FRAME ? stderr : undefined;
      // The sink may reuse its buffer: hand each reader its own copy.
      if (target !== undefined && !target.write(Uint8Array.prototype.slice.call(payload))) socket.pause();
    },
    (why) => {
      // Nothing after a broken frame can be trusted: end both outputs, drop the connection.
      reportBroken(why);
      end();
      socket.destroy();
    },
  );
  socket.on("data", demux);
  socket.once("end", () => {
    demux.end();
    end();
  });
  socket.once("close", end);
  // A closed stdin after the agent exited (EPIPE) is expected; any error ends the output all the same.
  socket.on("error", end);
  return {
    stdin: socket,
    stdout,
    stderr,
    broken,
    close: () => {
      socket.destroy();
      end();
    },
  };
}
