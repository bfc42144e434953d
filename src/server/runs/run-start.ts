// One Run through the agent runner, once it has a slot: starting, running at its first event, then
// ended as its Outcome says. The library's Run takes the service's id (one Run, one id), its input
// files from the record's inputs/ and its Harvest to the record's harvest/. Its queuedMs is its wait
// in the service's queue (createdAt to startedAt, as its record says) plus any wait for the library's slot.
// Invariant: nothing the agent's reader hands over after the Outcome is told; the end is.

import type { AgentEvent } from "../../agents/index.js";
import { emit } from "./run-events.js";
import type { ServiceRunRequest } from "./run-service-options.js";
import { end, setState, stateOf } from "./run-transitions.js";
import type { RunsBook } from "./runs-state.js";
import { runnerFor } from "./session-holds.js";
import type { RunRecord } from "./store.js";

export async function start(state: RunsBook, queued: RunRecord, controller: AbortController): Promise<void> {
  let record = await setState(state, queued, "starting");
  const { store, files } = state;
  const request = (await store.request(record.id)) as ServiceRunRequest;
  const { prompt, labels: _labels, writable, callbackUrl: _callback, ...agentRequest } = request;
  const runner = runnerFor(state, request);
  // The caller's trace context, and its wait in this service's queue as the Run's first step.
  const traceContext = { ...state.traces.get(record.id), queuedSince: Date.parse(record.createdAt) };
  state.traces.delete(record.id);
  let seenEvent = false;
  // The reader may hand over what it had queued after the Outcome: the Run has ended by then, and its end is what is told.
  let over = false;
  // Its directory, where its Harvest goes: made here whatever keeps its record (only the file store's create makes it too).
  await files.open(record.id);
  const outcome = await runner.run(agentRequest, prompt, {
    runId: record.id,
    signal: controller.signal,
    traceContext,
    harvestTo: files.harvestDirectory(record.id),
    ...(record.inputs === undefined ? {} : { inputs: { directory: files.inputsDirectory(record.id) } }),
    onEvent: (event: AgentEvent) => {
      if (over) return;
      if (!seenEvent) {
        seenEvent = true;
        void setState(state, record, "running").then((next) => (record = next));
      }
      state.options.onAgentEvent?.(event, record.tenant);
      void emit(state, record.id, "agent", event);
    },
  });
  over = true;
  await (state.writes.get(record.id) ?? Promise.resolve());
  record = state.records.get(record.id) ?? record;
  const waited = { ...outcome, queuedMs: queueWaitMs(record) + (outcome.queuedMs ?? 0) };
  await end(state, record, waited, stateOf(waited));
  state.options.onEnd?.(request, waited, record.tenant);
}

/**
 * How long the Run waited in the service's queue: from its record's createdAt to its startedAt. Added
 * here, not handed to the library: the library's queuedMs is the wait for its own slot on its own
 * monotonic clock, while this wait is the service's, kept in wall-clock times on disk (a restart between
 * them counts too), and the record's times and the Outcome then agree to the millisecond.
 */
function queueWaitMs(record: RunRecord): number {
  const waited = Date.parse(record.startedAt ?? "") - Date.parse(record.createdAt);
  return Number.isFinite(waited) ? Math.max(0, waited) : 0;
}
