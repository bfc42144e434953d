// An exec in a running container over Docker's Engine API: hijacked, no TTY, so its output comes in
// the attach stream's frames, split here (splitAttachStream) into stdout, which joins stdin as one duplex, and stderr.

import { Duplex } from "node:stream";
import type Docker from "dockerode";
import { scaledMs } from "../liveness/index.js";
import type { ContainerExec } from "./engine.js";
import { splitAttachStream } from "./attach-stream.js";

/**
 * How often the exit of an exec whose output ended is asked, and for how long on an idle machine
 * (stretched by the load: a busy engine records it later, not never); past it the exit is unknown.
 */
const EXIT_POLL_MS = 20;
const EXIT_WAIT_MS = 5_000;

export async function dockerExec(docker: Docker, container: string, argv: readonly string[]): Promise<ContainerExec> {
  const exec = await docker.getContainer(container).exec({ Cmd: [...argv], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false });
  const socket = (await exec.start({ hijack: true, stdin: true, Tty: false })) as Duplex;
  const streams = splitAttachStream(socket);
  const { stdout } = streams;
  const stdio = new Duplex({
    read: () => {
      stdout.resume();
    },
    write: (chunk: Buffer, _encoding, done) => {
      socket.write(chunk, done);
    },
    // Half-closes the connection: the program reads the end of its stdin, its output still comes back.
    final: (done) => {
      socket.end();
      done();
    },
    destroy: (error, done) => {
      streams.close();
      done(error);
    },
  });
  stdout.on("data", (chunk: Buffer) => {
    if (!stdio.push(chunk)) stdout.pause();
  });
  stdout.once("end", () => stdio.push(null));
  const exit = new Promise<number | undefined>((resolve) => {
    // The connection closes when the program's output ended (or the caller dropped it).
    socket.once("close", async () => {
      const started = performance.now();
      for (;;) {
        const info = await exec.inspect().catch(() => undefined);
        if (info === undefined) return resolve(undefined);
        if (!info.Running) return resolve(info.ExitCode ?? undefined);
        if (performance.now() - started > scaledMs(EXIT_WAIT_MS)) return resolve(undefined);
        await new Promise((wait) => setTimeout(wait, EXIT_POLL_MS));
      }
    });
  });
  return { stdio, stderr: streams.stderr, exit };
}
