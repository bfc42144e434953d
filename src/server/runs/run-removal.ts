// Removing Runs that have ended, with their directories: one at a time (DELETE), or every one that
// ended before a cutoff (the retention sweep). A live Run is never removed, and a Run's end is
// written in full before it goes. Invariant: a Run that was removed keeps nothing, not even an A2A task saved as it went.

import { recordOf, type RunsBook } from "./runs-state.js";
import { told } from "./run-transitions.js";
import { TERMINAL_STATES, type RunRecord } from "./store.js";

/** Removes a Run that has ended and its directory; a live one is left as it is ("live"). */
export async function remove(state: RunsBook, id: string): Promise<RunRecord | "live" | undefined> {
  const seen = await recordOf(state, id);
  if (seen === undefined || state.removing.has(id)) return undefined;
  if (!TERMINAL_STATES.has(seen.state)) return "live";
  state.removing.add(id);
  try {
    // Its end may still be being written (the end event after the terminal state).
    await state.finished.get(id);
    await state.writes.get(id);
    const record = await recordOf(state, id);
    // Gone meanwhile.
    if (record === undefined) return undefined;
    // Its idempotency key names nothing any more: the same key makes a new Run.
    if (record.idempotencyKey !== undefined) await state.store.keys.release(record.tenant, record.idempotencyKey, id);
    state.records.delete(id);
    state.lastEventId.delete(id);
    state.writes.delete(id);
    await state.store.remove(id);
    await state.files.remove(id);
    told(state, "run.deleted", record);
    return record;
  } finally {
    state.removing.delete(id);
  }
}

/** Removes, as DELETE does, every Run that ended before `cutoff` (epoch ms), with its artifacts; resolves with those it removed. */
export async function removeEndedBefore(state: RunsBook, cutoff: number): Promise<RunRecord[]> {
  const removed: RunRecord[] = [];
  for (const id of await state.store.endedBefore(cutoff)) {
    const gone = await remove(state, id);
    if (gone !== undefined && gone !== "live") removed.push(gone);
  }
  return removed;
}

/** Saves the A2A task made for a Run; a Run that was removed (or never was) keeps nothing. */
export async function saveA2ATask(state: RunsBook, id: string, task: unknown): Promise<void> {
  // A DELETE that lands meanwhile takes the directory: then there is nothing to keep it in.
  if ((await recordOf(state, id)) !== undefined)
    await state.store.saveA2ATask(id, task).catch(async (error: unknown) => {
      if ((await recordOf(state, id)) !== undefined) throw error;
    });
}
