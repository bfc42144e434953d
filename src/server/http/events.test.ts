// GET /v1/runs/:id/events over a loopback socket, through the real app over the in-memory store and a
// runner the test drives (route logic: no engine): a follower that stops reading is held no more
// than MAX_EVENT_STREAM_BACKLOG_BYTES (and an event), while the one beside it gets every event and
// the end; once it reads on, it gets every event once, to the end. What needs a real Run (a restart,
// a real agent's events) is serve.docker.test.ts's.

import type { ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useAppOnSocket } from "../../../test/support/app.js";
import type { AgentEvent } from "../../agents/index.js";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../../runner/index.js";
import { MAX_EVENT_STREAM_BACKLOG_BYTES } from "../limits.js";
import { createRunService, memoryRuns } from "../runs/index.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-events-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Each Run waits for the test's go, tells what it is given, then completes. */
let go: (events: readonly AgentEvent[]) => void = () => undefined;
const runner = {
  run: async (_request: unknown, _prompt: string, options: AgentRunOptions): Promise<AgentOutcome> => {
    const events = await new Promise<readonly AgentEvent[]>((resolve) => (go = resolve));
    for (const event of events) options.onEvent?.(event);
    return {
      runId: options.runId ?? "r",
      ok: true,
      reason: "completed",
      durationMs: 5,
      stdoutBytes: 0,
      stderrBytes: 0,
      stderr: "",
      credential: "api_key",
      cli: "claude",
      result: { ok: true, reason: "completed", text: "done", usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    } as AgentOutcome;
  },
} as unknown as AgentRunner;

const app = useAppOnSocket("events", () => {
  const { store, files } = memoryRuns(join(scratch, "runs"));
  return createRunService({ runner, store, files, slots: 1, queueBound: 10 });
});

const MiB = 2 ** 20;

/** A follower on a raw socket: what it has read so far; `over` once its stream has ended (the end event read) or the server closed it. */
type Follower = { readonly socket: Socket; readonly text: () => string; readonly over: Promise<void> };

function follow(path: string, headers: Record<string, string> = {}): Promise<Follower> {
  const { port } = new URL(app.url());
  const socket = connect(Number(port), "127.0.0.1");
  const chunks: string[] = [];
  let tail = "";
  let ended = () => undefined as void;
  const over = new Promise<void>((resolve) => {
    ended = resolve;
    socket.on("close", () => resolve());
  });
  socket.on("error", () => undefined);
  socket.setEncoding("latin1");
  const lines = Object.entries({ authorization: `Bearer ${app.token}`, accept: "text/event-stream", ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join("")}\r\n`);
  return new Promise((resolve) => {
    socket.on("data", (chunk: string) => {
      chunks.push(chunk);
      // The end event's frame, whole: the stream is over (the socket itself may be kept for another request).
      tail = (tail + chunk).slice(-4096);
      if (/\nevent: end\ndata: .*\n\n/.test(tail)) ended();
      if (chunks.length === 1) resolve({ socket, text: () => chunks.join(""), over });
    });
  });
}

/** The ids of the events in a stream's text, in order. */
const idsIn = (text: string): number[] => [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));

describe("GET /v1/runs/:id/events with a follower that stops reading", () => {
  it("holds that follower a bounded backlog while the other gets every event and the end; once it reads, it gets each event once, to the end", async () => {
    // What the service holds for each stream, as its writable backlog.
    const held: ServerResponse[] = [];
    const hear = (_request: unknown, response: ServerResponse) => held.push(response);
    app.app().server.on("request", hear);
    const answer = await fetch(`${app.url()}/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
      body: JSON.stringify({ cli: "claude", prompt: "tell a lot" }),
    });
    expect(answer.status).toBe(202);
    const { id } = (await answer.json()) as { id: string };
    const stalled = await follow(`/v1/runs/${id}/events`);
    stalled.socket.pause();
    const reading = await follow(`/v1/runs/${id}/events`);
    app.app().server.off("request", hear);
    const stalledHeld = held.find((response) => response.req.url === `/v1/runs/${id}/events`) as ServerResponse;
    // Four times the bound, in events of a MiB, all at once: past what the kernel's buffers hold for a socket nobody reads.
    const count = Math.ceil((4 * MAX_EVENT_STREAM_BACKLOG_BYTES) / MiB);
    go(Array.from({ length: count }, (_, i): AgentEvent => ({ type: "assistant_text", text: `${i}:${"x".repeat(MiB)}` })));
    await reading.over;
    const all = idsIn(reading.text());
    expect(reading.text().includes("\nevent: end\n"), "the reading follower got the end").toBe(true);
    expect(all.length).toBeGreaterThan(count);
    expect(new Set(all).size).toBe(all.length);
    // The one that stopped reading is held at most the bound and one event more.
    expect(stalledHeld.writableLength).toBeLessThanOrEqual(MAX_EVENT_STREAM_BACKLOG_BYTES + 2 * MiB);

    stalled.socket.resume();
    await stalled.over;
    expect(idsIn(stalled.text())).toEqual(all);
  }, 60_000);
});

describe("GET /v1/runs/:id/events with Connection: close", () => {
  it("answers without promising to keep the connection, and closes it once the stream has ended", async () => {
    const answer = await fetch(`${app.url()}/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
      body: JSON.stringify({ cli: "claude", prompt: "say little" }),
    });
    const { id } = (await answer.json()) as { id: string };
    const closing = await follow(`/v1/runs/${id}/events`, { connection: "close" });
    go([{ type: "assistant_text", text: "one" }]);
    await closing.over;
    const head = closing.text().split("\r\n\r\n")[0] ?? "";
    expect(head.toLowerCase()).not.toContain("connection: keep-alive");
    expect(head.toLowerCase()).toContain("connection: close");
    // The server closed the socket: a kept connection would still be open here.
    await new Promise<void>((resolve) => (closing.socket.closed ? resolve() : closing.socket.once("close", () => resolve())));
    expect(closing.socket.closed).toBe(true);
  }, 30_000);
});
