// The service's A2A face over real HTTP on loopback, driven by @a2a-js/sdk's own clients (the A2A
// 1.0 client the factory builds from the agent card, and the SDK's 0.3 JSON-RPC transport, which
// sends message/send, message/stream, tasks/get and tasks/cancel), with real Runs of the real
// claude and codex CLIs against the stand-in model.

import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CancelTaskRequest, GetTaskRequest, Message, SendMessageRequest, TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve, type RunningService } from "../index.js";
import { capturingLogger, containersOfRun } from "../../../test/support/engine.js";

const runtimeDir = mkdtempSync(join(tmpdir(), "agentcage-a2a-"));
let running: RunningService;
let token: string;
/** The A2A 1.0 client, as ClientFactory builds it from the agent card (SendMessage, GetTask, …). */
let current: Client;
/** The SDK's A2A 0.3 client transport: message/send, message/stream, tasks/get, tasks/cancel. */
let legacy: Client;

const PLAIN_ANSWER = "The capital of France is Paris.";

beforeAll(async () => {
  running = await serve({ runtimeDir, port: 0, standIn: true, slots: 2, logger: capturingLogger().logger, environment: {} });
  token = readFileSync(running.tokenFile as string, "utf8").trim();
  const authed: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed }),
  });
  current = await factory.createFromUrl(running.url);
  legacy = new Client(new LegacyJsonRpcTransport({ endpoint: `${running.url}/a2a/jsonrpc`, fetchImpl: authed }), await current.getAgentCard());
}, 60_000);

afterAll(async () => {
  await running.stop(5_000);
  rmSync(runtimeDir, { recursive: true, force: true });
}, 60_000);

const ask = (text: string, metadata?: Record<string, unknown>, configuration?: Record<string, unknown>, messageId: string = randomUUID()) =>
  SendMessageRequest.fromJSON({
    message: Message.toJSON(Message.fromJSON({ messageId, role: "ROLE_USER", parts: [{ text }], ...(metadata === undefined ? {} : { metadata }) })),
    ...(configuration === undefined ? {} : { configuration }),
  });

const asTask = (result: Message | Task): Task => {
  if (!("id" in result)) throw new Error(`expected a task, got a message: ${JSON.stringify(Message.toJSON(result))}`);
  return result;
};

const textsOf = (task: Task | undefined): string[] =>
  (task?.artifacts ?? []).flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])));

const statusText = (task: Task): string => (task.status?.message?.parts ?? []).flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : [])).join(" ");

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${running.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });

const untilRunning = async (id: string) => {
  for (let i = 0; i < 120 && (await runOf(id)).state !== "running"; i++) await new Promise((r) => setTimeout(r, 250));
};

const runOf = async (id: string) =>
  (await (await call(`/v1/runs/${id}`)).json()) as {
    id: string;
    state: string;
    labels: Record<string, string>;
    outcome?: { runId: string; reason: string; cli: string };
  };

describe("agentcage serve, as an A2A agent", () => {
  it("publishes its agent card without a token: both CLIs as skills, the bearer scheme, one JSON-RPC URL for A2A 1.0 and 0.3", async () => {
    const response = await fetch(`${running.url}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      name: "agentcage",
      capabilities: { streaming: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
      securityRequirements: [{ schemes: { bearer: {} } }],
      supportedInterfaces: [
        { url: `${running.url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: `${running.url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
    });
    expect((card["skills"] as Array<{ id: string; description: string }>).map((s) => s.id)).toEqual(["claude", "codex"]);
    expect(JSON.stringify(card)).toContain("metadata.cli");
    expect(JSON.stringify(card)).not.toContain(token);
    // The card is public; the agent is not.
    const anonymous = await fetch(`${running.url}/a2a/jsonrpc`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anonymous.status).toBe(401);
  });

  it("completes a message/send task with the stand-in's answer; the task is the Run, and tasks/get answers it", async () => {
    const messageId = randomUUID();
    const task = asTask(await legacy.sendMessage(ask("What is the capital of France?", undefined, undefined, messageId)));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textsOf(task)).toEqual([PLAIN_ANSWER]);
    expect(task.history.map((m) => m.messageId)).toContain(task.history[0]?.messageId);
    const run = await runOf(task.id);
    expect(run).toMatchObject({ id: task.id, state: "completed", labels: { via: "a2a" }, outcome: { cli: "claude", reason: "completed" } });
    expect(containersOfRun(run.outcome?.runId as string)).toEqual([]);
    const got = await legacy.getTask(GetTaskRequest.fromJSON({ id: task.id }));
    expect(got).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect(textsOf(got)).toEqual([PLAIN_ANSWER]);
    // The same message sent again (a retry) is the same task, not a second Run.
    const runs = (await running.service.page({ limit: 100_000 })).records.length;
    const again = asTask(await legacy.sendMessage(ask("What is the capital of France?", undefined, undefined, messageId)));
    expect(again).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    expect((await running.service.page({ limit: 100_000 })).records).toHaveLength(runs);
  }, 90_000);

  it("runs codex when metadata.cli says so, over A2A 1.0's SendMessage and GetTask", async () => {
    const task = asTask(await current.sendMessage(ask("What is the capital of France?", { cli: "codex" })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textsOf(task)).toEqual([PLAIN_ANSWER]);
    expect((await runOf(task.id)).outcome).toMatchObject({ cli: "codex", reason: "completed" });
    expect((await current.getTask(GetTaskRequest.fromJSON({ id: task.id }))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 90_000);

  it("streams a message/stream task live: the task, working, the answer, then completed, and the stream ends", async () => {
    const seen: StreamResponse[] = [];
    for await (const event of legacy.sendMessageStream(ask("What is the capital of France?"))) seen.push(event);
    const kinds = seen.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    const states = seen.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states).toContain(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(states.filter((s) => s === TaskState.TASK_STATE_COMPLETED)).toHaveLength(1);
    const answer = seen.find((e) => e.payload?.$case === "artifactUpdate");
    expect(answer?.payload?.$case === "artifactUpdate" ? answer.payload.value.artifact?.parts[0]?.content : undefined).toEqual({
      $case: "text",
      value: PLAIN_ANSWER,
    });
    const first = seen[0]?.payload;
    const id = first?.$case === "task" ? first.value.id : "";
    expect((await runOf(id)).state).toBe("completed");
  }, 90_000);

  it("cancels a task whose model never answers with tasks/cancel, within seconds, leaving no container", async () => {
    const submitted = asTask(await legacy.sendMessage(ask("[stand-in:hang] answer slowly", { timeoutSeconds: 600 }, { returnImmediately: true })));
    expect(submitted.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    await untilRunning(submitted.id);
    expect((await legacy.getTask(GetTaskRequest.fromJSON({ id: submitted.id }))).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const started = performance.now();
    const cancelled = await legacy.cancelTask(CancelTaskRequest.fromJSON({ id: submitted.id }));
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const run = await runOf(submitted.id);
    expect(run).toMatchObject({ state: "cancelled", outcome: { reason: "cancelled" } });
    expect(containersOfRun(run.outcome?.runId as string)).toEqual([]);
    expect((await legacy.getTask(GetTaskRequest.fromJSON({ id: submitted.id }))).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  }, 90_000);

  it("answers tasks/get and tasks/cancel for a Run made over /v1/runs too, and the cancel ends the Run", async () => {
    const submitted = (await (
      await call("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "[stand-in:hang] answer slowly", timeoutSeconds: 600 }) })
    ).json()) as { id: string };
    await untilRunning(submitted.id);
    expect((await current.getTask(GetTaskRequest.fromJSON({ id: submitted.id }))).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const started = performance.now();
    const cancelled = await current.cancelTask(CancelTaskRequest.fromJSON({ id: submitted.id }));
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const run = await runOf(submitted.id);
    expect(run).toMatchObject({ state: "cancelled", outcome: { reason: "cancelled" } });
    expect(containersOfRun(run.outcome?.runId as string)).toEqual([]);
    await expect(current.cancelTask(CancelTaskRequest.fromJSON({ id: submitted.id }))).resolves.toMatchObject({
      status: { state: TaskState.TASK_STATE_CANCELED },
    });
  }, 90_000);

  it("fails a task whose answer cannot match metadata.outputSchema, naming the field", async () => {
    const schema = { type: "object", required: ["city"], properties: { city: { type: "string" } } };
    const task = asTask(await legacy.sendMessage(ask("What is the capital of France? Answer as JSON.", { outputSchema: schema })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusText(task)).toContain("/city");
    expect(statusText(task)).toContain("does not match metadata.outputSchema");
    expect(textsOf(task)).toEqual([PLAIN_ANSWER]);
    // The Run itself completed: it is the answer that failed the task.
    expect((await runOf(task.id)).state).toBe("completed");
  }, 90_000);

  it("completes a task whose answer matches metadata.outputSchema", async () => {
    const task = asTask(await current.sendMessage(ask("What is the capital of France?", { outputSchema: { type: "string", pattern: "Paris" } })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 90_000);

  it("refuses a message it cannot run as invalid params, naming the field, before any Run exists", async () => {
    const before = (await running.service.page({ limit: 100_000 })).records.length;
    await expect(legacy.sendMessage(ask("hi", { cli: "gemini" }))).rejects.toThrow(/metadata\.cli: cli "gemini" is not one of claude, codex/);
    await expect(current.sendMessage(ask("hi", { outputSchema: { type: "potato" } }))).rejects.toThrow(
      /metadata\.outputSchema is not a JSON Schema ajv can use/,
    );
    await expect(legacy.getTask(GetTaskRequest.fromJSON({ id: "0123456789abcdef" }))).rejects.toThrow(/not found/i);
    expect((await running.service.page({ limit: 100_000 })).records).toHaveLength(before);
  });
});
