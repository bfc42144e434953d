import { GetTaskRequest, Message, SendMessageRequest, TaskState, type Task } from "@a2a-js/sdk";
import { DefaultRequestHandler, type ServerCallContext } from "@a2a-js/sdk/server";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { callContextOf } from "./a2a-caller.js";
import { agentCard } from "./a2a-card.js";
import { createRunBuses, createRunExecutor } from "./a2a-executor.js";
import { createRunTaskStore } from "./a2a-tasks.js";
import { OPERATOR } from "../caller.js";
import type { Listener, RunService } from "../runs/index.js";
import type { RunRecord, RunState, StoredEvent } from "../runs/index.js";

const RUN_ID = "0123456789abcdef";

/** Each scripted service's harvest directory, removed when the file ends. */
const scratch = mkdtempSync(join(tmpdir(), "agentcage-a2a-executor-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A RunService of one Run whose events the test tells, as the real one tells them: persisted, then heard. */
function scriptedService(full = false) {
  let record: RunRecord | undefined;
  const harvest = mkdtempSync(join(scratch, "harvest-"));
  const saved = new Map<string, unknown>();
  const events: StoredEvent[] = [];
  const listeners = new Set<Listener>();
  let outcome: unknown;
  const tell = (type: string, data: unknown) => {
    const event = { id: events.length + 1, type, data };
    events.push(event);
    if (type === "state" && record !== undefined) record = { ...record, state: (data as { state: RunState }).state };
    if (type === "end") outcome = data;
    for (const listener of listeners) listener(event);
  };
  const service = {
    submit: async () => {
      if (full) return "queue_full" as const;
      record = { id: RUN_ID, tenant: "operator", state: "queued", createdAt: new Date().toISOString(), labels: {} };
      tell("state", { state: "queued" });
      return { record, created: true };
    },
    get: (id: string) => (id === RUN_ID ? record : undefined),
    events: async () => [...events],
    outcome: async () => outcome,
    listen: (_id: string, listener: Listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    cancel: async () => record,
    list: () => (record === undefined ? [] : [record]),
    harvestDirectory: () => harvest,
    a2aTask: async (id: string) => saved.get(id),
    saveA2ATask: async (id: string, task: unknown) => void saved.set(id, structuredClone(task)),
  } as unknown as RunService;
  return { service, tell, harvest };
}

function agentOver(service: RunService) {
  const tasks = createRunTaskStore(service);
  const buses = createRunBuses();
  return new DefaultRequestHandler(agentCard("/a2a/jsonrpc"), tasks, createRunExecutor(service, tasks, buses), buses);
}

const ask = (metadata?: Record<string, unknown>) =>
  SendMessageRequest.fromJSON({
    message: Message.toJSON(
      Message.fromJSON({
        messageId: "m-1",
        role: "ROLE_USER",
        parts: [{ text: "What is the capital of France?" }],
        ...(metadata === undefined ? {} : { metadata }),
      }),
    ),
    configuration: { returnImmediately: true },
  });

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

/** The task once it has ended: an answer checked against a schema is checked in a worker, which takes a moment. */
async function endedTask(agent: DefaultRequestHandler, context: ServerCallContext): Promise<Task> {
  for (let waited = 0; ; waited += 20) {
    const task = await agent.getTask(GetTaskRequest.fromJSON({ id: RUN_ID }), context);
    const state = task.status?.state;
    if (waited >= 15_000 || state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED) return task;
    await settled();
  }
}

describe("the A2A agent over the service's Runs", () => {
  it("makes the Run's id the task's, and follows the Run: submitted, working, the answer, completed", async () => {
    const { service, tell } = scriptedService();
    const agent = agentOver(service);
    const context = callContextOf(OPERATOR);
    const task = (await agent.sendMessage(ask(), context)) as Task;
    expect(task).toMatchObject({ id: RUN_ID, status: { state: TaskState.TASK_STATE_SUBMITTED } });
    tell("state", { state: "starting" });
    tell("state", { state: "running" });
    tell("agent", { type: "assistant_text", text: "The capital of France is Paris." });
    await settled();
    expect((await agent.getTask(GetTaskRequest.fromJSON({ id: RUN_ID }), context)).status?.state).toBe(TaskState.TASK_STATE_WORKING);
    tell("state", { state: "completed" });
    tell("end", { ok: true, reason: "completed", result: { text: "The capital of France is Paris." } });
    await settled();
    const done = await agent.getTask(GetTaskRequest.fromJSON({ id: RUN_ID }), context);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "The capital of France is Paris." });
    expect(done.metadata).toMatchObject({ agentcage: { cli: "claude", runState: "completed", runReason: "completed" } });
  });

  it("fails the task of a completed Run whose answer breaks the output schema, naming the field", async () => {
    const { service, tell } = scriptedService();
    const agent = agentOver(service);
    const context = callContextOf(OPERATOR);
    await agent.sendMessage(ask({ outputSchema: { type: "object", required: ["city"], properties: { city: { type: "string" } } } }), context);
    tell("state", { state: "completed" });
    tell("end", { ok: true, reason: "completed", result: { text: '{"city": 75}' } });
    const done = await endedTask(agent, context);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(done.status?.message?.parts[0]?.content).toEqual({ $case: "text", value: "the answer does not match metadata.outputSchema: /city: must be string" });
  });

  const CITY_SCHEMA = { type: "object", required: ["city"], properties: { city: { type: "string" } } };

  it("checks out/result.json, when the agent wrote one, before its final text", async () => {
    const { service, tell, harvest } = scriptedService();
    const agent = agentOver(service);
    const context = callContextOf(OPERATOR);
    await agent.sendMessage(ask({ outputSchema: CITY_SCHEMA }), context);
    writeFileSync(join(harvest, "result.json"), '{"city": "Paris"}\n');
    tell("state", { state: "completed" });
    tell("end", { ok: true, reason: "completed", result: { text: "I wrote the answer to out/result.json." } });
    const done = await endedTask(agent, context);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[1]?.content).toEqual({ $case: "data", value: { city: "Paris" } });
  });

  it.each([
    ['{"city": 75}', "the answer in out/result.json does not match metadata.outputSchema: /city: must be string"],
    ["Paris", "the answer does not match metadata.outputSchema: out/result.json is not JSON"],
  ])("fails the task when out/result.json holds %j, however right the final text is", async (written, said) => {
    const { service, tell, harvest } = scriptedService();
    const agent = agentOver(service);
    const context = callContextOf(OPERATOR);
    await agent.sendMessage(ask({ outputSchema: CITY_SCHEMA }), context);
    writeFileSync(join(harvest, "result.json"), written);
    tell("state", { state: "completed" });
    tell("end", { ok: true, reason: "completed", result: { text: '{"city": "Paris"}' } });
    const done = await endedTask(agent, context);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const text = done.status?.message?.parts[0]?.content;
    expect(text?.$case === "text" ? text.value : "").toContain(said);
  });

  it("keeps a task's history in its Run's record: a new agent over the same Runs (a restart) answers it whole", async () => {
    const { service, tell } = scriptedService();
    const context = callContextOf(OPERATOR);
    await agentOver(service).sendMessage(ask(), context);
    tell("state", { state: "completed" });
    tell("end", { ok: true, reason: "completed", result: { text: "The capital of France is Paris." } });
    await settled();
    const again = await agentOver(service).getTask(GetTaskRequest.fromJSON({ id: RUN_ID, historyLength: 10 }), context);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.history.map((m) => m.messageId)).toContain("m-1");
    expect(again.metadata).toMatchObject({ agentcage: { cli: "claude" } });
  });

  it("says why a Run that failed failed", async () => {
    const { service, tell } = scriptedService();
    const agent = agentOver(service);
    const context = callContextOf(OPERATOR);
    await agent.sendMessage(ask(), context);
    tell("state", { state: "failed" });
    tell("end", { ok: false, reason: "credential_refused", error: "the API refused the key (401)" });
    await settled();
    const done = await agent.getTask(GetTaskRequest.fromJSON({ id: RUN_ID }), context);
    expect(done.status).toMatchObject({
      state: TaskState.TASK_STATE_FAILED,
      message: { parts: [{ content: { $case: "text", value: "the API refused the key (401)" } }] },
    });
  });

  it("rejects the task, under the SDK's id, when the queue is full: there is no Run to name it", async () => {
    const { service } = scriptedService(true);
    const task = (await agentOver(service).sendMessage(ask(), callContextOf(OPERATOR))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(task.id).not.toBe(RUN_ID);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: "text", value: "the service's queue is full; send the message again in a few seconds" });
  });
});
