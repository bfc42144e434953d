// Stopping Runs: a cancel ends a queued Run at once (its Outcome made here) and a running one
// through its container's stop, and answers when it has ended; a drain takes no new Runs and gives
// running ones a grace before it cancels them. Invariant: a Run that has ended is left as it ended.

import type { ServiceRunRequest } from "./run-service-options.js";
import { end } from "./run-transitions.js";
import { recordOf, type RunsBook } from "./runs-state.js";
import { releaseSession } from "./session-holds.js";
import { TERMINAL_STATES, type RunRecord } from "./store.js";

export async function cancel(state: RunsBook, id: string): Promise<RunRecord | undefined> {
  const record = await recordOf(state, id);
  if (record === undefined || TERMINAL_STATES.has(record.state)) return record;
  const at = state.queue.indexOf(id);
  if (at !== -1) {
    state.queue.splice(at, 1);
    const queuedMs = Math.max(0, Date.now() - Date.parse(record.createdAt));
    await end(
      state,
      record,
      { runId: id, ok: false, reason: "cancelled", error: "the Run was cancelled while it waited for a slot", durationMs: 0, queuedMs },
      "cancelled",
    );
    const request = (await state.store.request(id).catch(() => undefined)) as ServiceRunRequest | undefined;
    if (request !== undefined) state.options.onEnd?.(request, { reason: "cancelled", durationMs: 0, queuedMs }, record.tenant);
    return recordOf(state, id);
  }
  state.running.get(id)?.abort(new Error("cancelled through the service"));
  await state.finished.get(id);
  return recordOf(state, id);
}

/** No new Runs; running ones get `graceMs` to finish, then are cancelled. */
export async function drain(state: RunsBook, graceMs: number): Promise<void> {
  state.draining = true;
  // Runs still queued stay queued on disk for the next start, which holds their stores again.
  for (const id of state.queue) releaseSession(state, id);
  const all = Promise.all([...state.finished.values()]);
  const timer = setTimeout(() => {
    for (const controller of state.running.values()) controller.abort(new Error("the service is shutting down"));
  }, graceMs);
  await all;
  clearTimeout(timer);
}
