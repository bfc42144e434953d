// The stdio transport over real streams: a message over the limit is answered with its id and a
// sentence naming the limit, told once, and the messages after it arrive; only close() closes it.

import { PassThrough } from "node:stream";
import { setImmediate } from "node:timers/promises";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createStdioTransport } from "./index.js";

describe("createStdioTransport", () => {
  it("refuses a message over the limit with its id and goes on reading", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const refused: string[] = [];
    const transport = createStdioTransport({ stdin, stdout, maxMessageBytes: 100, onRefused: (sentence) => refused.push(sentence) });
    const received: JSONRPCMessage[] = [];
    let closed = false;
    transport.onmessage = (message) => received.push(message);
    transport.onclose = () => (closed = true);
    await transport.start();
    const huge = `{"jsonrpc":"2.0","method":"tools/call","params":{"prompt":"${"x".repeat(500)}"},"id":4}`;
    stdin.write(`${huge.slice(0, 250)}`);
    stdin.write(`${huge.slice(250)}\n{"jsonrpc":"2.0","id":5,"method":"ping"}\n`);
    await setImmediate();
    const sentence = `this message is ${huge.length} bytes, over MAX_MESSAGE_BYTES (100), so it was not read; hand large inputs over as files (run_agent's inputs)`;
    const answer = JSON.parse((stdout.read() as Buffer).toString()) as unknown;
    expect(answer).toEqual({ jsonrpc: "2.0", id: 4, error: { code: -32600, message: sentence } });
    expect(refused).toEqual([sentence]);
    expect(received).toEqual([{ jsonrpc: "2.0", id: 5, method: "ping" }]);
    expect(closed).toBe(false);
    await transport.close();
    expect(closed).toBe(true);
  });

  it("answers nothing for a notification over the limit, and still tells it", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const refused: string[] = [];
    const transport = createStdioTransport({ stdin, stdout, maxMessageBytes: 10, onRefused: (sentence) => refused.push(sentence) });
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await setImmediate();
    expect(stdout.read()).toBeNull();
    expect(refused).toHaveLength(1);
    await transport.close();
  });
});
