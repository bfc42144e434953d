// One Run through the agent runner, once it has a slot: starting, running at its first event, then
// ended as its Outcome says. The library's Run takes the service's id (one Run, one id), its input
// files from the record's inputs/ and its Harvest to the record's harvest/.
// Invariant: nothing the agent's reader hands over after the Outcome is told; the end is.

import type { AgentEvent } from "../agents/index.js";
import { emit } from "./run-events.js";
import type { ServiceRunRequest } from "./run-service-options.js";
import { end, setState, stateOf } from "./run-transitions.js";
import type { RunsState } from "./runs-state.js";
import { runnerFor } from "./session-holds.js";
import type { RunRecord } from "./store.js";

export async function start(state: RunsState, queued: RunRecord, controller: AbortController): Promise<void> {
  let record = await setState(state, queued, "starting");
  const { store } = state;
  const request = (await store.request(record.id)) as ServiceRunRequest;
  const { prompt, labels: _labels, writable, callbackUrl: _callback, ...agentRequest } = request;
  const runner = runnerFor(state, request);
  let seenEvent = false;
  // The reader may hand over what it had queued after the Outcome: the Run has ended by then, and its end is what is told.
  let over = false;
  const outcome = await runner.run(agentRequest, prompt, {
    runId: record.id,
    signal: controller.signal,
    harvestTo: store.harvestDirectory(record.id),
    ...(record.inputs === undefined ? {} : { inputs: { directory: store.inputsDirectory(record.id) } }),
    onEvent: (event: AgentEvent) => {
      if (over) return;
      if (!seenEvent) {
        seenEvent = true;
        void setState(state, record, "running").then((next) => (record = next));
      }
      void emit(state, record.id, "agent", event);
    },
  });
  over = true;
  await (state.writes.get(record.id) ?? Promise.resolve());
  record = state.records.get(record.id) ?? record;
  await end(state, record, outcome, stateOf(outcome));
  state.options.onEnd?.(request, outcome, record.tenant);
}
