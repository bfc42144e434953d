// How a Run moves from state to state, and how it ends: each state written to its record and told
// as an event, in the order things happened; the end is its Outcome saved, its terminal state, then
// exactly one `end` event. Invariant: a Run that has ended stays as it ended, whatever is said of it afterwards.

import type { AgentOutcome } from "../runner/index.js";
import { emit } from "./run-events.js";
import type { RunsState } from "./runs-state.js";
import { releaseSession } from "./session-holds.js";
import { TERMINAL_STATES, type RunRecord, type RunState } from "./store.js";

export async function setState(state: RunsState, record: RunRecord, runState: RunState): Promise<RunRecord> {
  const current = state.records.get(record.id);
  if (current !== undefined && TERMINAL_STATES.has(current.state)) return current;
  const next: RunRecord = { ...record, state: runState, ...(TERMINAL_STATES.has(runState) ? { endedAt: new Date().toISOString() } : {}) };
  state.records.set(next.id, next);
  // Queued on the Run's event chain before anything else is: events keep the order things happened in.
  const emitted = emit(state, next.id, "state", { state: runState });
  await state.store.update(next);
  await emitted;
  return next;
}

export async function end(state: RunsState, record: RunRecord, outcome: unknown, runState: RunState): Promise<void> {
  releaseSession(state, record.id);
  await state.store.saveOutcome(record.id, outcome);
  await setState(state, record, runState);
  await emit(state, record.id, "end", outcome);
}

/** The state an Outcome ends its Run in. */
export function stateOf(outcome: AgentOutcome): RunState {
  return outcome.ok ? "completed" : outcome.reason === "cancelled" ? "cancelled" : "failed";
}
