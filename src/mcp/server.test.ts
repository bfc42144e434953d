// The MCP server over a desk made here, spoken to by the SDK's own Client over its in-memory
// transport: what each tool answers and refuses, run_events' pages, read_artifact's text, base64
// and cut, progress told once per event in order, and following
// a Run that gets an event between listening and replaying.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { DeskEvent, DeskRun, RunDesk } from "./desk.js";
import { createMcpServer } from "./index.js";
import { MAX_ARTIFACT_READ_BYTES, MAX_EVENTS_PER_CALL } from "./limits.js";
import { followRun, progressLine } from "./progress.js";

const ID = "0123456789abcdef";

type FakeRun = { run: DeskRun; events: DeskEvent[]; listeners: Set<(event: DeskEvent) => void> };

/** A desk of Runs kept in memory; `emit` adds an event to a Run as the service would (persisted, then heard). */
function fakeDesk(files: Record<string, Uint8Array> = {}) {
  const runs = new Map<string, FakeRun>();
  const submitted: unknown[] = [];
  const emit = (id: string, type: string, data: unknown) => {
    const run = runs.get(id) as FakeRun;
    const event = { id: run.events.length + 1, type, data };
    run.events.push(event);
    if (type === "state") run.run = { ...run.run, state: (data as { state: string }).state };
    for (const listener of run.listeners) listener(event);
  };
  const desk: RunDesk = {
    requestSchema: z.strictObject({ cli: z.enum(["claude", "codex"]), prompt: z.string().min(1) }),
    inputs: "archive",
    submit: async (request, inputs) => {
      submitted.push({ request, inputs });
      runs.set(ID, { run: { id: ID, state: "queued" }, events: [], listeners: new Set() });
      emit(ID, "state", { state: "queued" });
      return runs.get(ID)?.run as DeskRun;
    },
    status: async (id) => runs.get(id)?.run ?? { refused: "not_found", message: "no Run with that id" },
    events: async (id) => runs.get(id)?.events.slice() ?? { refused: "not_found", message: "no Run with that id" },
    listen: (id, listener) => {
      runs.get(id)?.listeners.add(listener);
      return () => runs.get(id)?.listeners.delete(listener);
    },
    cancel: async (id) => runs.get(id)?.run ?? { refused: "not_found", message: "no Run with that id" },
    artifacts: async (id) => ({ id, files: Object.keys(files) }),
    readArtifact: async (_id, path, maxBytes) => {
      const bytes = files[path];
      return bytes === undefined ? { refused: "not_found", message: `no file ${path}` } : { bytes: bytes.subarray(0, maxBytes), size: bytes.byteLength };
    },
  };
  return { desk, emit, runs, submitted };
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(desk: RunDesk): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(desk, { version: "0.0.0-test" }).connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>, onprogress?: (progress: Progress) => void): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, onprogress === undefined ? {} : { onprogress })) as CallToolResult;
}

describe("the MCP server's tools", () => {
  it("list run_agent with the desk's request fields, an archive for inputs and wait; the others with a Run id", async () => {
    const client = await connect(fakeDesk().desk);
    const { tools } = await client.listTools();
    const runAgent = tools.find((tool) => tool.name === "run_agent");
    expect(Object.keys(runAgent?.inputSchema.properties ?? {})).toEqual(["cli", "prompt", "inputsArchive", "wait"]);
    expect(runAgent?.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.find((tool) => tool.name === "run_status")?.inputSchema).toMatchObject({ required: ["id"], additionalProperties: false });
  });

  it("run a task to its end, telling one progress notification per event, in order, and answer the Run", async () => {
    const { desk, emit, submitted } = fakeDesk();
    const client = await connect(desk);
    const progress: Progress[] = [];
    const answer = call(client, "run_agent", { cli: "claude", prompt: "hi", inputsArchive: Buffer.from("tar").toString("base64") }, (told) =>
      progress.push(told),
    );
    await expect.poll(() => progress.length).toBe(1);
    emit(ID, "state", { state: "running" });
    emit(ID, "agent", { type: "tool_call", name: "Write", input: { file_path: "/work/out/a.txt" } });
    emit(ID, "state", { state: "completed" });
    emit(ID, "end", { ok: true, reason: "completed" });
    const result = await answer;
    expect(result.structuredContent).toEqual({ id: ID, state: "completed" });
    expect(progress).toEqual([
      { progress: 1, message: "state: queued" },
      { progress: 2, message: "state: running" },
      { progress: 3, message: "agent: tool_call Write" },
      { progress: 4, message: "state: completed" },
      { progress: 5, message: "end: completed (ok)" },
    ]);
    expect(submitted).toEqual([{ request: { cli: "claude", prompt: "hi" }, inputs: { archive: Buffer.from("tar") } }]);
  });

  it("answer the Run at once with wait: false", async () => {
    const client = await connect(fakeDesk().desk);
    const result = await call(client, "run_agent", { cli: "codex", prompt: "hi", wait: false });
    expect(result.structuredContent).toEqual({ id: ID, state: "queued" });
  });

  it("refuse bad arguments as a tool result naming the parameter and quoting the value, and the desk's refusals with their code", async () => {
    const client = await connect(fakeDesk().desk);
    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ["run_agent", { cli: "claude" }, "prompt"],
      ["run_agent", { cli: "claude", prompt: "hi", inputsArchive: "%%%" }, 'inputsArchive "%%%" is not base64'],
      ["run_agent", { cli: "claude", prompt: "hi", inputs: "/etc" }, 'parameter "inputs" is not one run_agent takes'],
      ["run_events", { id: ID, since: 1.5 }, "since 1.5 is not a whole number"],
      ["run_status", { id: "x" }, 'id "x" is not a Run id'],
      ["nope", {}, 'there is no tool "nope"'],
    ];
    for (const [name, args, words] of refusals) {
      const result = await call(client, name, args);
      expect(result.isError, name).toBe(true);
      expect((result.structuredContent as { error: string; message: string }).error).toBe("invalid_request");
      expect((result.structuredContent as { message: string }).message).toContain(words);
    }
    expect((await call(client, "run_status", { id: ID })).structuredContent).toEqual({ error: "not_found", message: "no Run with that id" });
  });

  it("page run_events at MAX_EVENTS_PER_CALL, from the id since", async () => {
    const { desk, emit } = fakeDesk();
    const client = await connect(desk);
    await call(client, "run_agent", { cli: "claude", prompt: "hi", wait: false });
    for (let i = 0; i < MAX_EVENTS_PER_CALL + 49; i++) emit(ID, "agent", { type: "usage" });
    const first = (await call(client, "run_events", { id: ID })).structuredContent as { events: DeskEvent[]; next: number; more: boolean };
    expect(first.events.map((event) => event.id)).toEqual(Array.from({ length: MAX_EVENTS_PER_CALL }, (_v, i) => i + 1));
    expect(first).toMatchObject({ next: MAX_EVENTS_PER_CALL, more: true, ended: false });
    const second = (await call(client, "run_events", { id: ID, since: first.next })).structuredContent as { events: DeskEvent[]; next: number };
    expect(second).toMatchObject({ next: MAX_EVENTS_PER_CALL + 50, more: false });
    expect(second.events).toHaveLength(50);
  });

  it("read an artifact as text when it is UTF-8, as base64 when not, and cut a large one without splitting a character", async () => {
    const large = Buffer.from(`${"a".repeat(MAX_ARTIFACT_READ_BYTES - 1)}é and more`);
    const client = await connect(fakeDesk({ "a.txt": Buffer.from("héllo\n"), "b.bin": Buffer.from([0xff, 0x00, 0xfe]), "c.txt": large }).desk);
    expect((await call(client, "read_artifact", { id: ID, path: "a.txt" })).structuredContent).toEqual({
      id: ID,
      path: "a.txt",
      size: 7,
      truncated: false,
      text: "héllo\n",
    });
    expect((await call(client, "read_artifact", { id: ID, path: "b.bin" })).structuredContent).toMatchObject({ truncated: false, base64: "/wD+" });
    const cut = (await call(client, "read_artifact", { id: ID, path: "c.txt" })).structuredContent as { text: string; truncated: boolean; size: number };
    expect(cut).toMatchObject({ truncated: true, size: large.byteLength });
    expect(cut.text).toBe("a".repeat(MAX_ARTIFACT_READ_BYTES - 1));
  });
});

describe("following a Run", () => {
  it("hands over an event persisted between listening and replaying once, in order, and finishes at the end", async () => {
    const { desk, emit, runs } = fakeDesk();
    await desk.submit({}, undefined);
    const original = desk.events;
    // The end lands after listen() and before the replay is read: it is in both, and handed over once.
    const racing: RunDesk = {
      ...desk,
      events: async (id) => {
        emit(id, "end", { ok: true, reason: "completed" });
        return original(id);
      },
    };
    const seen: number[] = [];
    await followRun(racing, ID, (event) => seen.push(event.id), new AbortController().signal);
    expect(seen).toEqual([1, 2]);
    expect(runs.get(ID)?.listeners.size).toBe(0);
  });

  it("finishes when the caller aborts, and at once for an unknown Run", async () => {
    const { desk } = fakeDesk();
    await desk.submit({}, undefined);
    const controller = new AbortController();
    const following = followRun(desk, ID, () => undefined, controller.signal);
    controller.abort();
    await following;
    await followRun(desk, "fedcba9876543210", () => undefined, new AbortController().signal);
  });

  it("says each event in one short line for a person", () => {
    expect(progressLine({ id: 1, type: "state", data: { state: "running" } })).toBe("state: running");
    expect(progressLine({ id: 2, type: "end", data: { ok: false, reason: "timeout" } })).toBe("end: timeout");
    expect(progressLine({ id: 3, type: "agent", data: { type: "assistant_text", text: "line one\n\nline two" } })).toBe(
      "agent: assistant_text line one line two",
    );
    expect(progressLine({ id: 4, type: "agent", data: { type: "assistant_text", text: "x".repeat(1000) } })).toHaveLength(200);
    expect(progressLine({ id: 5, type: "metered", data: {} })).toBe("metered");
  });
});
