// The queue and its slots: Runs start in the order they were accepted, at most `slots` at once, and
// none while the service drains. Invariant: a Run that fails outside its agent (a disk error on its
// record) frees its slot and its session hold, and takes nothing else down.

import { start } from "./run-start.js";
import type { RunsState } from "./runs-state.js";
import { releaseSession } from "./session-holds.js";

/** Starts queued Runs while there are free slots. */
export function pump(state: RunsState): void {
  const { queue, records, running, finished, options } = state;
  while (!state.draining && running.size < options.slots && queue.length > 0) {
    const id = queue.shift() as string;
    const record = records.get(id);
    if (record === undefined || record.state !== "queued") continue;
    const controller = new AbortController();
    running.set(id, controller);
    // A Run that fails here (a disk error on its record) must not take the whole service down.
    finished.set(
      id,
      start(state, record, controller)
        .catch((error: unknown) => options.onError?.(id, error))
        .finally(() => {
          // Ended or not (a record that could not be written), the Run no longer waits for its store.
          releaseSession(state, id);
          running.delete(id);
          finished.delete(id);
          pump(state);
        }),
    );
  }
}

/** 1 for the next Run to start; undefined when the Run is not queued. */
export function position(state: RunsState, id: string): number | undefined {
  const at = state.queue.indexOf(id);
  return at === -1 ? undefined : at + 1;
}

export function counts(state: RunsState): { readonly queued: number; readonly running: number } {
  return { queued: state.queue.length, running: state.running.size };
}
