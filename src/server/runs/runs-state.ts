// The Runs' book: the one state the service keeps of its Runs in memory, beside their record in the
// Run Store (a Run's own state, queued to cancelled, is its RunState there): the Runs that have not
// ended, the queue, the running ones, their event chains and listeners, the sessions held. What has
// ended is the store's to answer (a Run, a page, usage, a session's owner), so the book does not grow
// with the Runs kept. Every step of the service reads and changes this one object, and nothing else;
// all of it but what is live (running, listening) is rebuilt from the record after a restart (run-recover.ts).

import type { RunFiles, RunRecord, RunStore, StoredEvent } from "./store.js";
import type { RunServiceOptions } from "./run-service-options.js";
import type { TraceHeaders } from "../../trace/index.js";

export type Listener = (event: StoredEvent) => void;

export type RunsBook = {
  readonly options: RunServiceOptions;
  readonly store: RunStore;
  readonly files: RunFiles;
  /** The Runs that have not ended, by id (one that is ending stays until its end is told). */
  readonly records: Map<string, RunRecord>;
  /** The Runs a removal is taking away: a second removal of one answers that it is gone. */
  readonly removing: Set<string>;
  /** Every tenant with a Run kept (or made since the start): the metrics and the service page name each. */
  readonly tenants: Set<string>;
  /** The ids of the Runs waiting for a slot, the next to start first. */
  readonly queue: string[];
  /** How to stop each Run that holds a slot. */
  readonly running: Map<string, AbortController>;
  /** Settles when a Run that holds a slot has ended and its slot is free again. */
  readonly finished: Map<string, Promise<void>>;
  readonly listeners: Map<string, Set<Listener>>;
  readonly lastEventId: Map<string, number>;
  /** One writer per Run: its events are appended in order, each write after the one before. */
  readonly writes: Map<string, Promise<void>>;
  /** The events of a Run told while its write before was under way: they go to the store together, in its next write. */
  readonly unwritten: Map<string, { readonly events: StoredEvent[]; readonly written: Promise<void> }>;
  /** The session store each Run that has not ended will resume, kept from this process's sweeps from its submit until it ends. */
  readonly heldSessions: Map<string, () => void>;
  /** The trace context each Run was submitted with, until it starts or ends (not kept past a restart). */
  readonly traces: Map<string, TraceHeaders>;
  /** No new Runs, and none started: the service is shutting down. */
  draining: boolean;
  /** Submits past the bound's check that have not yet queued their Run. */
  admitting: number;
  /** The same, by tenant: what its queued quota counts before the Run is queued. */
  readonly admittingBy: Map<string, number>;
  /** Runs started so far, and the count at each tenant's last start: who had a slot least recently. */
  starts: number;
  readonly lastStartBy: Map<string, number>;
};

export function createRunsBook(options: RunServiceOptions): RunsBook {
  return {
    options,
    store: options.store,
    files: options.files,
    records: new Map(),
    tenants: new Set(),
    removing: new Set(),
    queue: [],
    running: new Map(),
    finished: new Map(),
    listeners: new Map(),
    lastEventId: new Map(),
    writes: new Map(),
    unwritten: new Map(),
    heldSessions: new Map(),
    traces: new Map(),
    draining: false,
    admitting: 0,
    admittingBy: new Map(),
    starts: 0,
    lastStartBy: new Map(),
  };
}

/** A Run's record: the book's while it has not ended, the store's once it has; undefined when it is not kept. */
export async function recordOf(state: RunsBook, id: string): Promise<RunRecord | undefined> {
  return state.records.get(id) ?? (await state.store.get(id));
}
