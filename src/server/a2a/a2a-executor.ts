// The A2A agent: each message becomes one Run (RunService.submit), and the Run's persisted events
// become the task's: the Task (its id the Run's), working, the agent's text as it comes, the answer
// as an artifact and one final status, checked against the request's output schema. The SDK knows
// a task by the id it made before the Run existed; the buses below answer to the Run's id too.
// A Run is made as the calling tenant's, and a live task's bus is reached by the tenants that see it.

import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { TaskState, type Message, type TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import {
  AgentEvent,
  DefaultExecutionEventBus,
  type AgentExecutor,
  type ExecutionEventBus,
  type ExecutionEventBusManager,
  type TaskStore,
} from "@a2a-js/sdk/server";
import type { AgentEvent as RunAgentEvent } from "../../agents/index.js";
import { checkAnswer } from "./a2a-answer.js";
import { actedIn, callerOf } from "./a2a-caller.js";
import { MAX_RESULT_FILE_BYTES, RESULT_FILE } from "../a2a-limits.js";
import { runRequestOf, type A2ARunRequest } from "./a2a-request.js";
import { a2aStateOf, agentMessage, answerArtifact, dataPart, endingOf, endingText, isTerminal, textPart } from "./a2a-tasks.js";
import { allows, sees, type Caller } from "../caller.js";
import { quotaMessage } from "../runs/index.js";
import type { Refused, RunService } from "../runs/index.js";
import { TERMINAL_STATES, type RunState, type StoredEvent } from "../runs/index.js";

/** The SDK's event buses, also found by Run id, each with the final status its Run's task ended with. */
export type RunBuses = ExecutionEventBusManager & {
  readonly follow: (runId: string, taskId: string, tenant: string, final: Promise<TaskStatusUpdateEvent>) => void;
  readonly final: (runId: string) => Promise<TaskStatusUpdateEvent> | undefined;
};

/**
 * One bus per task, owned by the tenant whose call made it: a caller reaches only the buses of the
 * tenants it sees (its own; every one with the admin scope), so none follows or cancels another
 * tenant's live task. The tenant is the Caller's, never the `tenant` a JSON-RPC call names itself.
 */
export function createRunBuses(): RunBuses {
  const buses = new Map<string, Map<string, ExecutionEventBus>>();
  const runs = new Map<string, { readonly taskId: string; readonly tenant: string; readonly final: Promise<TaskStatusUpdateEvent> }>();
  const visible = (taskId: string, caller: Caller): { readonly tenant: string; readonly bus: ExecutionEventBus } | undefined => {
    const owned = buses.get(taskId);
    const own = owned?.get(caller.tenant);
    if (own !== undefined) return { tenant: caller.tenant, bus: own };
    for (const [tenant, bus] of owned ?? []) if (sees(caller, tenant)) return { tenant, bus };
    return undefined;
  };
  return {
    createOrGetByTaskId: (taskId, context) => {
      const tenant = callerOf(context).tenant;
      const owned = buses.get(taskId) ?? new Map<string, ExecutionEventBus>();
      buses.set(taskId, owned);
      const bus = owned.get(tenant) ?? new DefaultExecutionEventBus();
      owned.set(tenant, bus);
      return bus;
    },
    getByTaskId: (taskId, context) => {
      const caller = callerOf(context);
      const run = runs.get(taskId);
      return visible(taskId, caller)?.bus ?? (run === undefined || !sees(caller, run.tenant) ? undefined : buses.get(run.taskId)?.get(run.tenant));
    },
    cleanupByTaskId: (taskId, context) => {
      const found = visible(taskId, callerOf(context));
      if (found === undefined) return;
      found.bus.removeAllListeners();
      const owned = buses.get(taskId);
      owned?.delete(found.tenant);
      if (owned?.size === 0) buses.delete(taskId);
      for (const [runId, run] of runs) if (run.taskId === taskId && run.tenant === found.tenant) runs.delete(runId);
    },
    follow: (runId, taskId, tenant, final) => void runs.set(runId, { taskId, tenant, final }),
    final: (runId) => runs.get(runId)?.final,
  };
}

export function createRunExecutor(service: RunService, tasks: TaskStore, buses: RunBuses): AgentExecutor {
  return {
    execute: async (context, bus) => {
      const asked = runRequestOf(context.userMessage);
      // The front door refused these already; a message that got past it still gets a reason.
      if (typeof asked === "string") throw new RequestMalformedError(asked);
      // The Run is the caller's tenant's, and so is its idempotency key (a2a-message:<messageId>).
      const caller = callerOf(context.context);
      if (!allows(caller, "runs:write")) throw new RequestMalformedError("this call carries no key that may make Runs; send it with a runs:write key");
      const submitted = await service.submit(asked.run, asked.idempotencyKey, undefined, caller);
      actedIn(context.context)("run.create", ...auditOf(submitted));
      if (typeof submitted === "string" || "quota" in submitted) return reject(bus, context.taskId, context.contextId, context.userMessage, submitted);
      if ("unserved" in submitted) throw new RequestMalformedError(`metadata.${submitted.unserved}`);
      if ("reused" in submitted) {
        throw new RequestMalformedError(
          `message.messageId ${JSON.stringify(context.userMessage.messageId)} was already sent, with other content, as task ${submitted.reused.id}; send a new messageId for a new message`,
        );
      }

      const runId = submitted.record.id;
      let settle: (update: TaskStatusUpdateEvent) => void = () => undefined;
      buses.follow(runId, context.taskId, caller.tenant, new Promise((resolve) => (settle = resolve)));
      // A retried message (same messageId, same Run) keeps the task as it stands; a new one starts submitted.
      const known = submitted.created ? undefined : await tasks.load(runId, context.context);
      const contextId = known?.contextId ?? context.contextId;
      const metadata = { agentcage: { cli: asked.run.cli } };
      const status = known?.status ?? { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: submitted.record.createdAt };
      const history = known === undefined ? [{ ...context.userMessage, taskId: runId, contextId }] : [];
      bus.publish(AgentEvent.task({ id: runId, contextId, status, artifacts: [], history, metadata: known?.metadata ?? metadata }));
      if (known !== undefined && isTerminal(known.status?.state)) {
        const update = { taskId: runId, contextId, status, metadata: undefined };
        bus.publish(AgentEvent.statusUpdate(update));
        return settle(update);
      }

      const publishStatus = (state: TaskState, message: Message | undefined, extra?: Record<string, unknown>): TaskStatusUpdateEvent => {
        const update = { taskId: runId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: extra };
        bus.publish(AgentEvent.statusUpdate(update));
        return update;
      };
      let working = false;
      let runState: RunState = submitted.record.state;
      let outcome: { readonly data: unknown } | undefined;
      try {
        await followRun(service, runId, (event) => {
          if (event.type === "state") {
            runState = (event.data as { state: RunState }).state;
            if ((runState === "starting" || runState === "running") && !working) {
              working = true;
              publishStatus(TaskState.TASK_STATE_WORKING, undefined);
            }
          } else if (event.type === "agent") {
            const agentEvent = event.data as RunAgentEvent;
            if (agentEvent.type === "assistant_text" && agentEvent.text.trim() !== "") {
              working = true;
              publishStatus(TaskState.TASK_STATE_WORKING, agentMessage(runId, contextId, `${runId}-${event.id}`, [textPart(agentEvent.text)]));
            }
          } else if (event.type === "end") {
            outcome = { data: event.data };
          }
        });
        const ended = outcome as { readonly data: unknown };
        const resultFile = asked.output === undefined ? undefined : await readResultFile(service.harvestDirectory(runId));
        settle(await finish(runId, contextId, runState, ended.data, resultFile, asked, bus, publishStatus, metadata));
      } catch (error) {
        // Whatever broke here, the task ends, and says so: a cancel waiting on it is answered.
        settle(
          publishStatus(
            TaskState.TASK_STATE_FAILED,
            agentMessage(runId, contextId, `${runId}-end`, [textPart(`the service lost track of this Run: ${(error as Error).message}`)]),
          ),
        );
      }
    },
    // The SDK asks this only for a task the caller's own load found, on a bus the caller reaches.
    cancelTask: async (taskId, bus) => {
      await service.cancel(taskId);
      // The Run's end reached its task through execute; said once more here, so this cancel's own
      // listener hears it even if the first telling came before it listened.
      const final = buses.final(taskId);
      if (final !== undefined) bus.publish(AgentEvent.statusUpdate(await final));
    },
  };
}

/**
 * The agent's `out/result.json` (harvested to the Run's harvest/), when it left one: it is the
 * answer a schema checks, before the final text. Read as text; too big a file is an answer that
 * fails the check, in words.
 */
async function readResultFile(harvest: string): Promise<{ readonly text: string } | { readonly refused: string } | undefined> {
  const path = join(harvest, RESULT_FILE);
  const facts = await lstat(path).catch(() => undefined);
  if (facts === undefined) return undefined;
  if (!facts.isFile()) return { refused: `out/${RESULT_FILE} is not a regular file` };
  if (facts.size > MAX_RESULT_FILE_BYTES)
    return { refused: `out/${RESULT_FILE} is ${facts.size} bytes, over its limit of ${MAX_RESULT_FILE_BYTES} (MAX_RESULT_FILE_BYTES)` };
  return { text: await readFile(path, "utf8") };
}

/** The Run's end as the task's: the answer as an artifact, then one final status. */
async function finish(
  runId: string,
  contextId: string,
  runState: RunState,
  outcome: unknown,
  resultFile: Awaited<ReturnType<typeof readResultFile>>,
  asked: A2ARunRequest,
  bus: ExecutionEventBus,
  publishStatus: (state: TaskState, message: Message | undefined, extra?: Record<string, unknown>) => TaskStatusUpdateEvent,
  metadata: { agentcage: Record<string, unknown> },
): Promise<TaskStatusUpdateEvent> {
  const ending = endingOf(outcome);
  const ended: RunState = TERMINAL_STATES.has(runState) ? runState : ending.ok ? "completed" : ending.reason === "cancelled" ? "cancelled" : "failed";
  let state = a2aStateOf(ended);
  let message: Message | undefined;
  let value: unknown;
  if (state === TaskState.TASK_STATE_COMPLETED && asked.output !== undefined) {
    // out/result.json, when the agent wrote one, is its answer; else its final text is.
    const check =
      resultFile !== undefined && "refused" in resultFile
        ? ({
            ok: false,
            message: `the answer does not match metadata.outputSchema: ${resultFile.refused}`,
            mismatches: [{ field: "/", keyword: "file", message: resultFile.refused }],
          } as const)
        : resultFile !== undefined
          ? await checkAnswer(resultFile.text, asked.output, `out/${RESULT_FILE}`)
          : await checkAnswer(ending.text ?? "", asked.output);
    if (!check.ok) {
      state = TaskState.TASK_STATE_FAILED;
      message = agentMessage(runId, contextId, `${runId}-end`, [textPart(check.message), dataPart({ outputSchemaMismatches: check.mismatches })]);
    } else if (check.json) {
      value = check.value;
    }
  }
  if (state !== TaskState.TASK_STATE_COMPLETED && message === undefined)
    message = agentMessage(runId, contextId, `${runId}-end`, [textPart(endingText(ending))]);
  if (ending.text !== undefined) {
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId: runId,
        contextId,
        artifact: answerArtifact(ending.text, value),
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
  }
  return publishStatus(state, message, { agentcage: { ...metadata.agentcage, runState: ended, runReason: ending.reason } });
}

/** Hears every event of a Run from its first, exactly once, until its `end`. */
function followRun(service: RunService, runId: string, onEvent: (event: StoredEvent) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let delivered = 0;
    let replaying = true;
    const pending: StoredEvent[] = [];
    const deliver = (event: StoredEvent) => {
      if (event.id <= delivered) return;
      delivered = event.id;
      try {
        onEvent(event);
      } catch (error) {
        stop();
        reject(error as Error);
        return;
      }
      if (event.type === "end") {
        stop();
        resolve();
      }
    };
    // Listen first, then replay: an event that lands between the two is queued, never lost or doubled.
    const stop = service.listen(runId, (event) => (replaying ? pending.push(event) : deliver(event)));
    service.events(runId).then(
      (events) => {
        for (const event of events) deliver(event);
        replaying = false;
        for (const event of pending) deliver(event);
      },
      (error: unknown) => {
        stop();
        reject(error as Error);
      },
    );
  });
}

/** No Run was made (the queue is full, or the service is shutting down): the task keeps the SDK's id and ends rejected, saying when to retry. */
function reject(bus: ExecutionEventBus, taskId: string, contextId: string, userMessage: Message, why: Refused): void {
  const text =
    why === "queue_full"
      ? "the service's queue is full; send the message again in a few seconds"
      : why === "draining"
        ? "the service is shutting down; send the message again once it is back"
        : quotaMessage(why);
  const message = agentMessage(taskId, contextId, `${taskId}-rejected`, [textPart(text)]);
  const status = { state: TaskState.TASK_STATE_REJECTED, message, timestamp: new Date().toISOString() };
  bus.publish(AgentEvent.task({ id: taskId, contextId, status, artifacts: [], history: [{ ...userMessage, taskId, contextId }], metadata: undefined }));
  bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status, metadata: undefined }));
}

/** What the audit log says of one submit over A2A: the Run made (202) or answered again (200), or why none was. */
function auditOf(submitted: Awaited<ReturnType<RunService["submit"]>>): [runId: string | undefined, result: number | string] {
  if (typeof submitted === "string") return [undefined, submitted];
  if ("quota" in submitted) return [undefined, `quota_exceeded: ${submitted.quota}`];
  if ("unserved" in submitted) return [undefined, "invalid_request"];
  if ("reused" in submitted) return [undefined, "idempotency_key_reused"];
  return [submitted.record.id, submitted.created ? 202 : 200];
}
