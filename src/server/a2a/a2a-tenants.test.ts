// The A2A face between tenants, through the real app over the in-memory store and scripted Runs
// (route logic: no engine): tenant B asking for tenant A's task by its id (GetTask, CancelTask,
// SubscribeToTask, in A2A 1.0 and 0.3 words) is answered byte for byte as an unknown id is, lists
// none of A's, and leaves A's task running; one messageId is each tenant's own; a runs:read key reads
// and follows tasks but makes and cancels none; /metrics shows B nothing of A, not even A's name, and
// the admin scope everything. Calls go through app.inject(); a stream (the app on loopback) is read
// to its first event.

import { randomBytes, randomUUID } from "node:crypto";
import { Message, SendMessageRequest } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { scriptedRunner, useAppInMemory } from "../../../test/support/app.js";

const service = useAppInMemory("a2a-tenants", {
  runner: scriptedRunner((prompt) => ({
    events: [{ type: "init", sessionId: randomUUID() }, ...(prompt.startsWith("hang") ? [] : [{ type: "assistant_text" as const, text: "Paris" }])],
    untilCancelled: prompt.startsWith("hang"),
  })),
});

type Answer = { readonly status: number; readonly type: string; readonly text: string };

const keys = { a: "", b: "", aReader: "" };

/** What answers as a stream (the app on loopback, read to its first event); every other call through app.inject(). */
const STREAMS = new Set(["SubscribeToTask", "tasks/resubscribe", "SendStreamingMessage", "message/stream"]);

/**
 * One JSON-RPC call as a client sends it (A2A 1.0 with its version header, 0.3 without), its answer
 * as text; a stream's first event only, then the connection is closed.
 */
async function rpc(key: string, method: string, params: unknown, version: "1.0" | "0.3" = "1.0"): Promise<Answer> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", ...(version === "1.0" ? { "a2a-version": "1.0" } : {}) };
  const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method, params });
  if (!STREAMS.has(method)) {
    const answer = await service.app().inject({ method: "POST", url: "/a2a/jsonrpc", headers, payload: body });
    return { status: answer.statusCode, type: String(answer.headers["content-type"] ?? ""), text: answer.body };
  }
  const controller = new AbortController();
  const answer = await fetch(`${await service.url()}/a2a/jsonrpc`, { method: "POST", signal: controller.signal, headers, body });
  const type = answer.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream")) return { status: answer.status, type, text: await answer.text() };
  const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  while (!text.includes("\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  controller.abort();
  return { status: answer.status, type, text };
}

const sendParams = (text: string, messageId: string, metadata?: Record<string, unknown>, returnImmediately = false) =>
  SendMessageRequest.toJSON(
    SendMessageRequest.fromJSON({
      message: Message.toJSON(Message.fromJSON({ messageId, role: "ROLE_USER", parts: [{ text }], ...(metadata === undefined ? {} : { metadata }) })),
      configuration: { returnImmediately },
    }),
  );

const taskOf = (answer: Answer): { id: string; status?: { state?: string } } => {
  const said = JSON.parse(answer.text) as { result?: { task?: { id: string; status?: { state?: string } } }; error?: unknown };
  if (said.result?.task === undefined) throw new Error(`expected a task, got ${answer.status} ${answer.text}`);
  return said.result.task;
};

const runOf = async (key: string, id: string) => {
  const answer = await service.call(key, `/v1/runs/${id}`);
  return { status: answer.status, run: answer.json() as { state?: string } };
};

const metricsOf = async (key: string) => (await service.call(key, "/metrics")).text;

/** A Run id no Run has: the shape of one, never made. */
const unknownId = () => randomBytes(8).toString("hex");

/** An answer with every id it names written as <id>, to hold two answers side by side. */
const withoutIds = (answer: Answer, ...ids: string[]): Answer => ({
  ...answer,
  text: ids.reduce((text, id) => text.split(id).join("<id>"), answer.text),
});

describe("A2A between tenants", () => {
  let hanging = "";
  const hangingMessageId = randomUUID();

  it("gives each tenant its own tasks: B asking for A's task id is answered exactly as for an unknown id, and A's task runs on", async () => {
    keys.a = await service.makeKey("a", "runs:write");
    keys.b = await service.makeKey("b", "runs:write");
    keys.aReader = await service.makeKey("a", "runs:read");

    const sent = await rpc(keys.a, "SendMessage", sendParams("hang: answer slowly", hangingMessageId, { timeoutSeconds: 600 }, true));
    hanging = taskOf(sent).id;
    await service.reaches(keys.a, hanging, ["running"]);
    expect((await service.service().get(hanging))?.tenant).toBe("a");

    const asked: Array<[string, "1.0" | "0.3"]> = [
      ["GetTask", "1.0"],
      ["CancelTask", "1.0"],
      ["SubscribeToTask", "1.0"],
      ["tasks/get", "0.3"],
      ["tasks/cancel", "0.3"],
      ["tasks/resubscribe", "0.3"],
    ];
    for (const [method, version] of asked) {
      const unknown = unknownId();
      const theirs = await rpc(keys.b, method, { id: hanging }, version);
      const none = await rpc(keys.b, method, { id: unknown }, version);
      expect(withoutIds(theirs, hanging), method).toEqual(withoutIds(none, unknown));
      expect(theirs.text, method).toMatch(/not found/i);
    }
    // The same door over /v1/runs: 404 as for an unknown id.
    expect((await runOf(keys.b, hanging)).status).toBe(404);

    const listed = JSON.parse((await rpc(keys.b, "ListTasks", {})).text) as { result: { tasks: Array<{ id: string }>; totalSize: number } };
    expect(listed.result.tasks.map((t) => t.id)).not.toContain(hanging);
    const adminListed = JSON.parse((await rpc(service.token, "ListTasks", {})).text) as { result: { tasks: Array<{ id: string }> } };
    expect(adminListed.result.tasks.map((t) => t.id)).toContain(hanging);

    // The audit log names who made A's task over A2A, and B's cancels of it changed nothing, so none is there as done.
    const audit = (await service.call(service.token, "/v1/audit")).json() as {
      entries: Array<{ action: string; tenant?: string; runId?: string; target?: string; result: unknown }>;
    };
    expect(audit.entries).toContainEqual(expect.objectContaining({ action: "run.create", tenant: "a", runId: hanging, target: "A2A", result: 202 }));
    expect(audit.entries.filter((entry) => entry.action === "run.cancel" && entry.runId === hanging)).toEqual([]);

    // A's task was neither cancelled nor touched.
    expect((await runOf(keys.a, hanging)).run.state).toBe("running");
    const own = JSON.parse((await rpc(keys.a, "GetTask", { id: hanging })).text) as { result: { status: { state: string } } };
    expect(own.result.status.state).toBe("TASK_STATE_WORKING");
  });

  it("keeps one messageId each tenant's own: B's message with A's messageId is a new task of B's, naming none of A's", async () => {
    const sent = await rpc(keys.b, "SendMessage", sendParams("What is the capital of France?", hangingMessageId));
    const task = taskOf(sent);
    expect(sent.text).not.toContain(hanging);
    expect(task.id).not.toBe(hanging);
    expect(task.status?.state).toBe("TASK_STATE_COMPLETED");
    expect((await service.service().get(task.id))?.tenant).toBe("b");
  });

  it("lets a runs:read key read and follow its tenant's tasks, and refuses it SendMessage and CancelTask (1.0 and 0.3) with 403", async () => {
    const before = (await service.service().page({ limit: 100_000 })).records.length;
    const refusals = [
      await rpc(keys.aReader, "SendMessage", sendParams("hi", randomUUID())),
      await rpc(keys.aReader, "SendStreamingMessage", sendParams("hi", randomUUID())),
      await rpc(
        keys.aReader,
        "message/send",
        { message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "hi" }] } },
        "0.3",
      ),
      await rpc(keys.aReader, "CancelTask", { id: hanging }),
      await rpc(keys.aReader, "tasks/cancel", { id: hanging }, "0.3"),
    ];
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(403);
      expect(JSON.parse(refused.text)).toMatchObject({ error: "forbidden", message: expect.stringContaining("runs:write") });
    }
    expect((await service.service().page({ limit: 100_000 })).records).toHaveLength(before);
    expect((await runOf(keys.a, hanging)).run.state).toBe("running");

    const got = JSON.parse((await rpc(keys.aReader, "GetTask", { id: hanging })).text) as { result: { id: string } };
    expect(got.result.id).toBe(hanging);
    const followed = await rpc(keys.aReader, "SubscribeToTask", { id: hanging });
    expect(followed.type).toMatch(/^text\/event-stream/);
    expect(followed.text).toContain(hanging);
  });

  it("shows B's key its own tenant's metrics only, with no series or name of A's, and the admin scope both", async () => {
    const theirs = await metricsOf(keys.b);
    expect(theirs).toMatch(/^agentcage_runs_total\{cli="claude",reason="completed",tenant="b"\} 1$/m);
    expect(theirs).toContain("# TYPE agentcage_queue_depth gauge");
    expect(theirs).not.toContain('"a"');
    expect(theirs).not.toContain("operator");
    const all = await metricsOf(service.token);
    expect(all).toMatch(/^agentcage_runs_running\{tenant="a"\} 1$/m);
    expect(all).toMatch(/tenant="b"/);

    // A ends its own task; it was never another tenant's to end.
    const cancelled = JSON.parse((await rpc(keys.a, "CancelTask", { id: hanging })).text) as { result: { status: { state: string } } };
    expect(cancelled.result.status.state).toBe("TASK_STATE_CANCELED");
  });
});
