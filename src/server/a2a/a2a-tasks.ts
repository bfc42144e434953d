// How a Run looks as an A2A task (its id is the Run's id; its state follows the Run's), and the
// SDK's TaskStore over the service's Runs: the tasks A2A made are kept with their history in their
// Run's directory (through a restart), and any other Run (made over /v1/runs) is answered from its
// record. A caller sees its own tenant's tasks only (the admin scope every tenant's): another's is
// an unknown id. Invariant: a task saved as canceled while its Run still runs cancels the Run first.

import { Role, Task, TaskState, type Artifact, type ListTasksRequest, type ListTasksResponse, type Message, type Part, type TaskStatus } from "@a2a-js/sdk";
import type { TaskStore } from "@a2a-js/sdk/server";
import { actedIn, callerOf } from "./a2a-caller.js";
import { MAX_TASKS_KEPT } from "../a2a-limits.js";
import { sees, type Caller } from "../caller.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { TERMINAL_STATES, type RunRecord, type RunState } from "../runs/index.js";

const A2A_STATES: Readonly<Record<RunState, TaskState>> = {
  queued: TaskState.TASK_STATE_SUBMITTED,
  starting: TaskState.TASK_STATE_WORKING,
  running: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
};

/** queued → submitted, starting and running → working, and each end to its own. */
export function a2aStateOf(state: RunState): TaskState {
  return A2A_STATES[state];
}

const A2A_TERMINAL: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && A2A_TERMINAL.has(state);
}

/** What the service's `end` event (a Run's Outcome) says, read from whatever shape it has. */
export type Ending = { readonly ok: boolean; readonly reason: string; readonly error?: string; readonly text?: string };

export function endingOf(outcome: unknown): Ending {
  const o = (typeof outcome === "object" && outcome !== null ? outcome : {}) as {
    ok?: unknown;
    reason?: unknown;
    error?: unknown;
    result?: { text?: unknown };
  };
  const text = typeof o.result?.text === "string" && o.result.text !== "" ? o.result.text : undefined;
  return {
    ok: o.ok === true,
    reason: typeof o.reason === "string" ? o.reason : "unknown",
    ...(typeof o.error === "string" ? { error: o.error } : {}),
    ...(text === undefined ? {} : { text }),
  };
}

export const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" });
export const dataPart = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" });

/** A message from the agent; a stable messageId keeps it once in the task's history however often it is sent. */
export function agentMessage(taskId: string, contextId: string, messageId: string, parts: Part[]): Message {
  return { messageId, contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The agent's final answer, as the task's one artifact; with the JSON it held when a schema checked it. */
export function answerArtifact(text: string, value?: unknown): Artifact {
  return {
    artifactId: "answer",
    name: "answer",
    description: "the agent's final answer",
    parts: value === undefined ? [textPart(text)] : [textPart(text), dataPart(value)],
    metadata: undefined,
    extensions: [],
  };
}

/** Why a Run that did not complete ended, in words for the task's status message. */
export function endingText(ending: Ending): string {
  return ending.error ?? `the Run ended ${ending.reason}`;
}

/** A Run as a task, from its record and Outcome alone (no A2A history: it was not kept, or never was). */
export async function taskOfRun(service: RunService, record: RunRecord): Promise<Task> {
  const ending = TERMINAL_STATES.has(record.state) ? endingOf(await service.outcome(record.id)) : undefined;
  const state = a2aStateOf(record.state);
  const message =
    ending !== undefined && state !== TaskState.TASK_STATE_COMPLETED
      ? agentMessage(record.id, record.id, `${record.id}-end`, [textPart(endingText(ending))])
      : undefined;
  const status: TaskStatus = { state, message, timestamp: record.endedAt ?? record.createdAt };
  return {
    id: record.id,
    contextId: record.id,
    status,
    artifacts: ending?.text === undefined ? [] : [answerArtifact(ending.text)],
    history: [],
    metadata: { agentcage: { runState: record.state, ...(ending === undefined ? {} : { runReason: ending.reason }) } },
  };
}

export function createRunTaskStore(service: RunService): TaskStore {
  // Tasks of Runs are saved in the Run's directory (they outlive a restart and go with DELETE); a
  // task with no Run (rejected: the queue was full) is kept here only, per tenant, its newest MAX_TASKS_KEPT.
  const runless = new Map<string, Map<string, Task>>();
  const keepRunless = (tenant: string, task: Task) => {
    const kept = runless.get(tenant) ?? new Map<string, Task>();
    runless.set(tenant, kept);
    kept.delete(task.id);
    kept.set(task.id, structuredClone(task));
    for (const id of kept.keys()) {
      if (kept.size <= MAX_TASKS_KEPT) break;
      kept.delete(id);
    }
  };
  /** The runless tasks a caller sees, newest last: its own tenant's, or every tenant's with the admin scope. */
  const runlessFor = (caller: Caller): Task[] => [...runless].filter(([tenant]) => sees(caller, tenant)).flatMap(([, kept]) => [...kept.values()]);
  // Every read and write goes through the caller's view: another tenant's Run is no task of its.
  const keep = async (caller: Caller, task: Task) => {
    // An id that is any tenant's Run is never kept as a runless task, so none can shadow another's.
    if ((await service.get(task.id)) === undefined) return keepRunless(caller.tenant, task);
    await runsFor(service, caller).saveA2ATask(task.id, Task.toJSON(task));
  };
  const load = async (caller: Caller, taskId: string): Promise<Task | undefined> => {
    const runs = runsFor(service, caller);
    const record = await runs.get(taskId);
    if (record === undefined) return (await service.get(taskId)) === undefined ? structuredClone(runlessFor(caller).find((t) => t.id === taskId)) : undefined;
    const saved = await runs.a2aTask(taskId);
    return saved === undefined ? taskOfRun(runs, record) : Task.fromJSON(saved);
  };
  return {
    load: (taskId, context) => load(callerOf(context), taskId),
    save: async (task, context) => {
      const caller = callerOf(context);
      const runs = runsFor(service, caller);
      const record = await runs.get(task.id);
      if (task.status?.state === TaskState.TASK_STATE_CANCELED && record !== undefined && !TERMINAL_STATES.has(record.state)) {
        const after = await runs.cancel(task.id);
        actedIn(context)("run.cancel", task.id, after?.state ?? "not_found");
        // It ended another way first: the task says how it really ended, and the SDK refuses the cancel.
        if (after !== undefined && after.state !== "cancelled") {
          await keep(caller, { ...task, status: (await taskOfRun(runs, after)).status });
          return;
        }
      }
      await keep(caller, task);
    },
    list: async (params: ListTasksRequest, context): Promise<ListTasksResponse> => {
      const caller = callerOf(context);
      const pageSize = params.pageSize ?? 50;
      // Every Run the caller sees is a task (the ones A2A made with their history), newest first, then its rejected ones.
      const ids = await everyRun(runsFor(service, caller));
      const all = [...(await Promise.all(ids.map((id) => load(caller, id)))).filter((t): t is Task => t !== undefined), ...runlessFor(caller).reverse()];
      const matching = all
        .filter(
          (t) =>
            (params.contextId === "" || t.contextId === params.contextId) &&
            (params.status === TaskState.TASK_STATE_UNSPECIFIED || t.status?.state === params.status),
        )
        .filter((t) => !params.statusTimestampAfter || (t.status?.timestamp ?? "") >= params.statusTimestampAfter);
      const start = params.pageToken === "" ? 0 : matching.findIndex((t) => t.id === params.pageToken) + 1;
      const page = matching.slice(start, start + pageSize).map((t) => ({ ...t, artifacts: params.includeArtifacts === true ? t.artifacts : [] }));
      const last = page.at(-1);
      return { tasks: page, nextPageToken: start + pageSize < matching.length && last !== undefined ? last.id : "", pageSize, totalSize: matching.length };
    },
  };
}

/**
 * The ids of every Run a caller sees, newest first, a page at a time: A2A's list filters on what only
 * each task holds (its context, its status), so it reads every Run's task, as it did before the index.
 */
async function everyRun(runs: RunService): Promise<string[]> {
  const ids: string[] = [];
  let after: RunRecord | undefined;
  for (;;) {
    const { records, more } = await runs.page({ limit: 1000, after });
    ids.push(...records.map((record) => record.id));
    after = records.at(-1);
    if (!more || after === undefined) return ids;
  }
}
