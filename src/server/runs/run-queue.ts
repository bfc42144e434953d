// The queue and its slots: at most `slots` Runs at once, none while the service drains, and a fair
// share between tenants: the next Run to start is the oldest of the tenant with the fewest Runs
// running, among tenants below their maxRunning; between tenants running as many, the one whose last
// start is the oldest goes first (a round). One tenant's backlog never holds another's Runs back.
// Invariant: a Run that fails outside its agent (a disk error on its record) frees its slot and its
// session hold, and takes nothing else down.

import { quotasOf } from "./quotas.js";
import { start } from "./run-start.js";
import type { RunsBook } from "./runs-state.js";
import { releaseSession } from "./session-holds.js";

/** Starts queued Runs while there are free slots. */
export function pump(state: RunsBook): void {
  const { queue, records, running, finished, options } = state;
  while (!state.draining && running.size < options.slots && queue.length > 0) {
    const at = nextToStart(state);
    if (at === undefined) return;
    const [id] = queue.splice(at, 1) as [string];
    const record = records.get(id);
    if (record === undefined || record.state !== "queued") continue;
    state.starts += 1;
    state.lastStartBy.set(record.tenant, state.starts);
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

/** Where in the queue the next Run to start is: the oldest of the tenant with the fewest running, below its maxRunning; undefined when none may start. */
function nextToStart(state: RunsBook): number | undefined {
  const runningBy = new Map<string, number>();
  for (const id of state.running.keys()) {
    const tenant = state.records.get(id)?.tenant ?? "";
    runningBy.set(tenant, (runningBy.get(tenant) ?? 0) + 1);
  }
  let best: { at: number; running: number; lastStart: number } | undefined;
  const seen = new Set<string>();
  for (const [at, id] of state.queue.entries()) {
    const record = state.records.get(id);
    // Not a Run that waits (cancelled meanwhile): taken out and skipped.
    if (record === undefined || record.state !== "queued") return at;
    if (seen.has(record.tenant)) continue;
    seen.add(record.tenant);
    const running = runningBy.get(record.tenant) ?? 0;
    if (running >= quotasOf(state, record.tenant).maxRunning) continue;
    const lastStart = state.lastStartBy.get(record.tenant) ?? 0;
    if (best === undefined || running < best.running || (running === best.running && lastStart < best.lastStart)) best = { at, running, lastStart };
  }
  return best?.at;
}

/** 1 for the next Run to start; undefined when the Run is not queued. */
export function position(state: RunsBook, id: string): number | undefined {
  const at = state.queue.indexOf(id);
  return at === -1 ? undefined : at + 1;
}

export function counts(state: RunsBook): { readonly queued: number; readonly running: number } {
  return { queued: state.queue.length, running: state.running.size };
}
