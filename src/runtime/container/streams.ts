// A running container's output, as the Run consumes it: stdout to the plan's reader through a
// channel with backpressure and a hard cap (past it the Run ends as `output_limit`), stderr kept
// up to its cap and counted. Both keep draining whatever the reader does, so the agent never
// blocks on a full pipe because of us. What the agent prints while it is being stopped is kept:
// recorded like the rest, and handed to the reader without holding the agent up.

import type { ContainerStreams } from "../../engine/index.js";
import { createCappedBytes, type CappedBytes } from "./capped-bytes.js";
import { MAX_STDERR_RECORD_BYTES, MAX_STDOUT_BYTES } from "../limits.js";
import { createStdoutChannel, type StdoutChannel } from "./stdout-channel.js";

export type RunOutput = {
  /** What the plan's reader iterates. */
  readonly stdout: StdoutChannel;
  readonly stderr: CappedBytes;
  /** Stdout bytes the container wrote, counted past the cap too. */
  readonly stdoutBytes: () => number;
  /** Resolves when both stdout and stderr have ended (the container closed them, or the connection went). */
  readonly ended: Promise<void>;
  /**
   * The Run is being stopped: stdout is read at once from here on (an engine reports the exit only
   * once the output is read), still recorded and still handed to the reader, but never paused for
   * it: a reader more than STDOUT_HIGH_WATER_BYTES behind has its stream ended there, the rest is
   * recorded and counted only.
   */
  readonly drain: () => void;
  /** Whether the agent's stdout is paused because the reader has not taken what was queued: it is held up by us. */
  readonly heldUp: () => boolean;
};

export type OutputHooks = {
  /** Sees every stdout byte that is accepted (under the cap), as it arrives; for the Run record. */
  readonly onStdout?: (chunk: Uint8Array) => void;
  /** Sees every stderr byte as it arrives. */
  readonly onStderr?: (chunk: Uint8Array) => void;
  /** Any bytes on stdout or stderr, kept or not: the agent is not silent. */
  readonly onBytes?: () => void;
  /** Stdout passed MAX_STDOUT_BYTES; called once. */
  readonly onOverflow: (detail: string) => void;
};

export function readOutput(streams: Pick<ContainerStreams, "stdout" | "stderr">, hooks: OutputHooks): RunOutput {
  const stderr = createCappedBytes(MAX_STDERR_RECORD_BYTES);
  const channel = createStdoutChannel(() => streams.stdout.resume());
  let stdoutBytes = 0;
  let overflowed = false;
  let draining = false;
  streams.stdout.on("data", (chunk: Buffer) => {
    hooks.onBytes?.();
    const room = MAX_STDOUT_BYTES - stdoutBytes;
    stdoutBytes += chunk.length;
    if (overflowed) return;
    if (chunk.length > room) {
      overflowed = true;
      if (room > 0) {
        channel.push(chunk.subarray(0, room));
        hooks.onStdout?.(chunk.subarray(0, room));
      }
      channel.end();
      hooks.onOverflow(`stdout passed its limit of ${MAX_STDOUT_BYTES} bytes (MAX_STDOUT_BYTES) and the agent was killed`);
      return;
    }
    hooks.onStdout?.(chunk);
    const taken = channel.push(chunk);
    if (taken) return;
    if (draining) channel.end();
    else streams.stdout.pause();
  });
  streams.stderr.on("data", (chunk: Buffer) => {
    hooks.onBytes?.();
    stderr.push(chunk);
    hooks.onStderr?.(chunk);
  });
  const ended = Promise.all([endOf(streams.stdout), endOf(streams.stderr)]).then(() => channel.end());
  const drain = (): void => {
    draining = true;
    // A reader already that far behind gets what was queued for it, and no more.
    if (streams.stdout.isPaused()) channel.end();
    streams.stdout.resume();
  };
  const heldUp = (): boolean => !draining && !overflowed && streams.stdout.isPaused();
  return { stdout: channel, stderr, stdoutBytes: () => stdoutBytes, ended, drain, heldUp };
}

function endOf(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}
