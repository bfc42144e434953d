// The service's Runs, assembled: one state object (runs-state.ts) and the named steps over it, each
// in a file of its own: submit, the queue and its slots, a Run's start, its events and transitions,
// cancel and drain, recover after a restart, removal. The HTTP routes and A2A only call this.
// Invariant: a Run that has ended stays as it ended; nothing its agent's reader hands over later
// (stopping never waits on the reader) moves its state or follows its `end` event.

import type { Caller } from "../caller.js";
import { cancel, drain } from "./run-cancel.js";
import { eventsOf, listen } from "./run-events.js";
import { counts, position } from "./run-queue.js";
import { recover } from "./run-recover.js";
import { remove, removeEndedBefore, saveA2ATask } from "./run-removal.js";
import type { RunServiceOptions, ServiceRunRequest } from "./run-service-options.js";
import { submit, type Admitted, type InputsWriter, type KeyReused, type Refused, type Unserved } from "./run-submit.js";
import { createRunsBook, recordOf, type Listener } from "./runs-state.js";
import { TERMINAL_STATES, type RunPage, type RunQuery, type RunRecord, type StoredDelivery, type StoredEvent } from "./store.js";
import type { TenantUsage } from "./usage.js";

export type { Lifecycle, ResolvedQuotas, RunEnd, RunServiceOptions, ServiceRunRequest } from "./run-service-options.js";
export type { Admitted, InputsWriter, KeyReused, Refused, Unserved } from "./run-submit.js";
export type { Listener } from "./runs-state.js";

export type RunService = {
  /**
   * Accepts a Run, or says the queue is full. A known idempotency key answers the Run it made when
   * the request is the same (field order aside; inputs given or not), and that Run as `reused`
   * when it is not; a second submit with a key still being submitted waits for the first.
   * `inputs`, when given, writes the Run's input files first; its rejection is this call's, and no Run is made.
   * `owner`: whose Run it is (default the Operator); its tenant's quotas hold, and its idempotency keys are its own.
   */
  readonly submit: (
    request: ServiceRunRequest,
    idempotencyKey?: string,
    inputs?: InputsWriter,
    owner?: Caller,
  ) => Promise<Admitted | KeyReused | Refused | Unserved>;
  /** A Run's record; undefined when it is not kept. */
  readonly get: (id: string) => Promise<RunRecord | undefined>;
  /** A page of Runs, newest first (GET /v1/runs): the store's, costing the page, not the Runs kept. */
  readonly page: (query: RunQuery) => Promise<RunPage>;
  /** Each tenant's Runs that ended at or after `since` (epoch ms), summed; one tenant's only when named. */
  readonly usage: (since: number, tenant?: string) => Promise<TenantUsage[]>;
  /** A Run that has not ended, or whose end is being told (it has events still to come); undefined for any other. */
  readonly held: (id: string) => RunRecord | undefined;
  /** The Runs that have not ended (queued, starting, running), oldest first. */
  readonly live: () => readonly RunRecord[];
  /** Every tenant with a Run kept, by name. */
  readonly tenants: () => readonly string[];
  /** 1 for the next Run to start; undefined when the Run is not queued. */
  readonly position: (id: string) => number | undefined;
  readonly events: (id: string) => Promise<StoredEvent[]>;
  readonly outcome: (id: string) => Promise<unknown>;
  /** What the Run was asked (its request.json), as it was accepted. */
  readonly request: (id: string) => Promise<unknown>;
  /** Hears each new event of a Run (after it is persisted); returns how to stop listening. */
  readonly listen: (id: string, listener: Listener) => () => void;
  /** Ends a Run: a queued one at once, a running one through its container's stop; a terminal one is left as it is. */
  readonly cancel: (id: string) => Promise<RunRecord | undefined>;
  /** Rebuilds the index from the store: finished Runs as they were, queued ones queued again, running ones ended as interrupted. */
  readonly recover: () => Promise<void>;
  /** No new Runs; running ones get `graceMs` to finish, then are cancelled. */
  readonly drain: (graceMs: number) => Promise<void>;
  readonly counts: () => { readonly queued: number; readonly running: number };
  /** Removes a Run that has ended and its directory; a live one is left as it is ("live"). */
  readonly remove: (id: string) => Promise<RunRecord | "live" | undefined>;
  /** Removes, as DELETE does, every Run that ended before `cutoff` (epoch ms), with its artifacts; resolves with those it removed. */
  readonly removeEndedBefore: (cutoff: number) => Promise<RunRecord[]>;
  /** The A2A task made for a Run (the SDK's JSON), kept in its directory so it outlives a restart. */
  readonly a2aTask: (id: string) => Promise<unknown>;
  /** Saves it; a Run that was removed (or never was) keeps nothing. */
  readonly saveA2ATask: (id: string, task: unknown) => Promise<void>;
  /** Each webhook a Run owes (or owed) and each attempt to deliver it, as its deliveries.jsonl holds them. */
  readonly deliveries: (id: string) => Promise<StoredDelivery[]>;
  /** Where a Run's agent's work was harvested to (`harvest/` in its directory); it exists once the Harvest ran and took something. */
  readonly harvestDirectory: (id: string) => string;
};

export function createRunService(options: RunServiceOptions): RunService {
  const state = createRunsBook(options);
  const { records, store, files } = state;
  return {
    submit: (request, idempotencyKey, inputs, owner) => submit(state, request, idempotencyKey, inputs, owner),
    get: (id) => recordOf(state, id),
    // A Run the book holds is answered as the book has it: its last state may not have reached the store yet.
    page: async (query) => {
      const { records: found, more } = await store.page(query);
      return { records: found.map((record) => records.get(record.id) ?? record), more };
    },
    usage: (since, tenant) => store.usage(since, tenant),
    held: (id) => records.get(id),
    live: () => [...records.values()].filter((record) => !TERMINAL_STATES.has(record.state)),
    tenants: () => [...state.tenants].sort(),
    position: (id) => position(state, id),
    events: (id) => eventsOf(state, id),
    outcome: (id) => store.outcome(id),
    request: async (id) => ((await recordOf(state, id)) === undefined ? undefined : store.request(id)),
    listen: (id, listener) => listen(state, id, listener),
    cancel: (id) => cancel(state, id),
    recover: () => recover(state),
    drain: (graceMs) => drain(state, graceMs),
    counts: () => counts(state),
    remove: (id) => remove(state, id),
    removeEndedBefore: (cutoff) => removeEndedBefore(state, cutoff),
    harvestDirectory: (id) => files.harvestDirectory(id),
    a2aTask: async (id) => ((await recordOf(state, id)) === undefined ? undefined : store.a2aTask(id)),
    saveA2ATask: (id, task) => saveA2ATask(state, id, task),
    deliveries: async (id) => ((await recordOf(state, id)) === undefined ? [] : store.deliveries(id)),
  };
}
