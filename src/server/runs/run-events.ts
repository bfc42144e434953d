// A Run's events: numbered per Run, appended to its record, and only then told to its listeners,
// one at a time in the order they were emitted. Those emitted while the write before is under way
// go to the record together, in one write: the store's latency bounds how late an event is told,
// never how many a second can be. Invariant: a reader who replays the record and then listens
// (SSE, A2A) misses nothing and sees nothing twice.

import type { StoredEvent } from "./store.js";
import type { Listener, RunsBook } from "./runs-state.js";

/** Persists the next event of a Run, then tells its listeners; resolves once both are done. */
export function emit(state: RunsBook, id: string, type: string, data: unknown): Promise<void> {
  const event: StoredEvent = { id: (state.lastEventId.get(id) ?? 0) + 1, type, data };
  state.lastEventId.set(id, event.id);
  const waiting = state.unwritten.get(id);
  if (waiting !== undefined) {
    waiting.events.push(event);
    return waiting.written;
  }
  const events = [event];
  const written = (state.writes.get(id) ?? Promise.resolve()).then(async () => {
    // Written from here on: what is emitted now waits for the next write.
    state.unwritten.delete(id);
    await state.store.appendEvents(id, events);
    for (const stored of events) for (const listener of state.listeners.get(id) ?? []) listener(stored);
  });
  state.unwritten.set(id, { events, written });
  state.writes.set(
    id,
    written.catch(() => undefined),
  );
  return written;
}

/** Hears each new event of a Run (after it is persisted); returns how to stop listening. */
export function listen(state: RunsBook, id: string, listener: Listener): () => void {
  const set = state.listeners.get(id) ?? new Set<Listener>();
  set.add(listener);
  state.listeners.set(id, set);
  return () => {
    set.delete(listener);
    if (set.size === 0) state.listeners.delete(id);
  };
}

/** Every event of a Run so far, those still being written included. */
export async function eventsOf(state: RunsBook, id: string): Promise<StoredEvent[]> {
  await (state.writes.get(id) ?? Promise.resolve());
  return state.store.events(id);
}
