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
import { createRunsBook, type Listener } from "./runs-state.js";
import type { RunRecord, StoredDelivery, StoredEvent } from "./store.js";

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
  readonly get: (id: string) => RunRecord | undefined;
  readonly list: () => readonly RunRecord[];
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
    get: (id) => records.get(id),
    list: () => [...records.values()],
    position: (id) => position(state, id),
    events: (id) => eventsOf(state, id),
    outcome: (id) => store.outcome(id),
    request: (id) => (records.has(id) ? store.request(id) : Promise.resolve(undefined)),
    listen: (id, listener) => listen(state, id, listener),
    cancel: (id) => cancel(state, id),
    recover: () => recover(state),
    drain: (graceMs) => drain(state, graceMs),
    counts: () => counts(state),
    remove: (id) => remove(state, id),
    removeEndedBefore: (cutoff) => removeEndedBefore(state, cutoff),
    harvestDirectory: (id) => files.harvestDirectory(id),
    a2aTask: (id) => (records.has(id) ? store.a2aTask(id) : Promise.resolve(undefined)),
    saveA2ATask: (id, task) => saveA2ATask(state, id, task),
    deliveries: (id) => (records.has(id) ? store.deliveries(id) : Promise.resolve([])),
  };
}
