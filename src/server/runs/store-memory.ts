// The in-memory Run Store: the same contract as the file store (store.test.ts), kept in this
// process's memory and gone with it; for route tests, which need the service's logic and not its disk.
// Every value goes in and comes out as JSON, as the file store's do: what a caller holds is never
// the store's own object, and a field left undefined is not kept. Its queries are answered by the same
// index as the file store's (run-index.ts), so both answer them alike.

import type { TraceHeaders } from "../../trace/index.js";
import { createKeyClaims } from "./key-claims.js";
import { createRunIndex, entryOf, owedAfter, sessionOf } from "./run-index.js";
import type { RunFiles, RunRecord, RunStore, StoredDelivery, StoredEvent } from "./store.js";
import { createFileRunFiles } from "./store-files.js";

type Kept = {
  record: RunRecord;
  readonly request: unknown;
  readonly trace: TraceHeaders | undefined;
  readonly events: StoredEvent[];
  outcome: unknown;
  a2aTask: unknown;
  readonly deliveries: StoredDelivery[];
};

/** The in-memory store's Runs, with their directories (which the runner is handed by path) under `filesDir`. */
export function memoryRuns(filesDir: string): { readonly store: RunStore; readonly files: RunFiles } {
  return { store: createMemoryRunStore(), files: createFileRunFiles(filesDir) };
}

export function createMemoryRunStore(): RunStore {
  const runs = new Map<string, Kept>();
  const index = createRunIndex();
  const kept = (id: string): Kept => {
    const run = runs.get(id);
    if (run === undefined) throw new Error(`no Run ${JSON.stringify(id)} is recorded in this store`);
    return run;
  };
  return {
    keys: createKeyClaims(),
    create: async (record, request, trace) => {
      runs.set(record.id, {
        record: copied(record),
        request: copied(request),
        trace: trace === undefined ? undefined : copied(trace),
        events: [],
        outcome: undefined,
        a2aTask: undefined,
        deliveries: [],
      });
      index.upsert(entryOf(copied(record)));
    },
    update: async (record) => {
      const run = kept(record.id);
      run.record = copied(record);
      index.upsert(entryOf(run.record, index.get(record.id)));
    },
    get: async (id) => copied(runs.get(id)?.record),
    page: async (query) => {
      const { entries, more } = index.page(query);
      return { records: entries.map((entry) => copied(kept(entry.id).record)), more };
    },
    usage: async (since, tenant) => copied(index.usage(since, tenant)),
    recoverable: async () => index.live().map((entry) => ({ record: copied(kept(entry.id).record), lastEventId: kept(entry.id).events.at(-1)?.id ?? 0 })),
    endedBefore: async (cutoff) => index.endedBefore(cutoff),
    sessionOwner: async (session) => {
      const owner = index.sessionOwner(session);
      return owner === undefined ? undefined : { tenant: owner.tenant, cli: owner.cli };
    },
    owing: async () => index.owing(),
    tenants: async () => index.tenants(),
    request: async (id) => copied(kept(id).request),
    trace: async (id) => {
      const trace = runs.get(id)?.trace;
      return trace === undefined ? undefined : copied(trace);
    },
    appendEvents: async (id, events) => void kept(id).events.push(...events.map(copied)),
    events: async (id) => (runs.get(id)?.events ?? []).map(copied),
    saveOutcome: async (id, outcome) => {
      kept(id).outcome = copied(outcome);
      const entry = index.get(id);
      const session = sessionOf(outcome);
      if (entry !== undefined && session !== undefined) index.upsert({ ...entry, session });
    },
    outcome: async (id) => copied(runs.get(id)?.outcome),
    saveA2ATask: async (id, task) => {
      kept(id).a2aTask = copied(task);
    },
    a2aTask: async (id) => copied(runs.get(id)?.a2aTask),
    appendDelivery: async (id, delivery) => {
      const run = runs.get(id);
      run?.deliveries.push(copied(delivery));
      const entry = index.get(id);
      if (entry !== undefined) {
        const owes = owedAfter(entry.owes, delivery);
        if (owes !== entry.owes) index.upsert({ ...entry, owes: owes ?? [] });
      }
      return run !== undefined;
    },
    deliveries: async (id) => (runs.get(id)?.deliveries ?? []).map(copied),
    remove: async (id) => {
      runs.delete(id);
      index.remove(id);
    },
    // Nothing outlives the process, so no submit is ever left half made.
    prepare: async () => [],
  };
}

/** A value as it would come back from JSON; undefined stays undefined. */
function copied<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
