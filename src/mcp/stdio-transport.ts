// The MCP server's stdio transport: the SDK's own, except for what one line too long does. The SDK's
// closes itself past its buffer, which a command reads as its client gone; this one refuses that
// message (answering its id, when it had one, in one sentence naming the limit) and reads on.
// Invariant: memory held for a message is bounded by MAX_MESSAGE_BYTES, and only stdin's end (or
// close()) ends the session.

import type { Readable, Writable } from "node:stream";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_MESSAGE_BYTES } from "./limits.js";
import { type MessageLine, messageLines } from "./message-lines.js";

type StdioTransportOptions = {
  /** Where messages come from; process.stdin by default. */
  readonly stdin?: Readable;
  /** Where answers go; process.stdout by default. */
  readonly stdout?: Writable;
  /** Bytes of one message at most; MAX_MESSAGE_BYTES by default (the SDK's own bound). */
  readonly maxMessageBytes?: number;
  /** Told each refusal of a message too long, in the sentence its answer carries (for a person, on stderr). */
  readonly onRefused?: (sentence: string) => void;
};

export function createStdioTransport(options: StdioTransportOptions = {}): Transport {
  const { stdin = process.stdin, stdout = process.stdout, maxMessageBytes = MAX_MESSAGE_BYTES } = options;
  const lines = messageLines(maxMessageBytes);
  const transport: Transport = {
    start: async () => {
      stdin.on("data", ondata);
      stdin.on("error", onerror);
    },
    send: (message: JSONRPCMessage) =>
      new Promise<void>((resolve) => {
        if (stdout.write(serializeMessage(message))) resolve();
        else stdout.once("drain", resolve);
      }),
    close: async () => {
      stdin.off("data", ondata);
      stdin.off("error", onerror);
      // Paused only when no one else reads it.
      if (stdin.listenerCount("data") === 0) stdin.pause();
      lines.clear();
      transport.onclose?.();
    },
  };
  const onerror = (error: Error) => transport.onerror?.(error);
  const receive = (line: MessageLine) => {
    if (line.kind === "line") {
      try {
        transport.onmessage?.(deserializeMessage(line.text));
      } catch (error) {
        transport.onerror?.(error as Error);
      }
      return;
    }
    const sentence = `this message is ${line.bytes} bytes, over MAX_MESSAGE_BYTES (${maxMessageBytes}), so it was not read; hand large inputs over as files (run_agent's inputs)`;
    options.onRefused?.(sentence);
    // A notification, or a line whose id could not be read: nothing to answer.
    if (line.id !== undefined) void transport.send({ jsonrpc: "2.0", id: line.id, error: { code: ErrorCode.InvalidRequest, message: sentence } });
  };
  const ondata = (chunk: Buffer) => {
    for (const line of lines.push(chunk)) receive(line);
  };
  return transport;
}
