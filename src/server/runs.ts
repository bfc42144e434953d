// The service's Runs: accepted in order, queued up to a bound, run through the agent runner one
// slot at a time, every event numbered and persisted before anyone is told of it, cancel that
// always ends, and the state after a restart rebuilt from the record. Each Run is given its input
// files from its own inputs/ and harvests to its own harvest/; a writable one edits a copy of them
// and harvests its change set. The HTTP routes only call this.
// Invariant: a Run that has ended stays as it ended; nothing its agent's reader hands over later
// (stopping never waits on the reader) moves its state or follows its `end` event.

import type { AgentEvent, AgentOutcome, AgentRequestInput, AgentRunner } from "../agents/index.js";
import { newRunId } from "../runtime/index.js";
import { recoverHarvest } from "../staging/index.js";
import { createRunStore, TERMINAL_STATES, type RunRecord, type RunState, type StoredEvent } from "./store.js";

/** What POST /v1/runs asks: an agent request plus the prompt, labels, and whether the agent edits a copy of its inputs. */
export type ServiceRunRequest = AgentRequestInput & {
  readonly prompt: string;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly writable?: boolean | undefined;
};

export type Listener = (event: StoredEvent) => void;

/**
 * Writes a Run's input files into `directory` (which does not exist yet) before the Run is
 * accepted, and says what it wrote; a rejection refuses the Run, and its directory is removed.
 */
export type InputsWriter = (directory: string) => Promise<NonNullable<RunRecord["inputs"]>>;

export type Admitted = { readonly record: RunRecord; readonly created: boolean };
/** The idempotency key was given before, with a different request: the Run it made, which this request is not. */
export type KeyReused = { readonly reused: RunRecord };
/** Why a submit made no Run: the bound is reached, or the service is shutting down. */
export type Refused = "queue_full" | "draining";
/** A request the service cannot serve (a session to resume, and no sessions kept; writable without inputs): what to do instead. */
export type Unserved = { readonly unserved: string };

export type RunService = {
  /**
   * Accepts a Run, or says the queue is full. A known idempotency key answers the Run it made when
   * the request is the same (field order aside; inputs given or not), and that Run as `reused`
   * when it is not; a second submit with a key still being submitted waits for the first.
   * `inputs`, when given, writes the Run's input files first; its rejection is this call's, and no Run is made.
   */
  readonly submit: (request: ServiceRunRequest, idempotencyKey?: string, inputs?: InputsWriter) => Promise<Admitted | KeyReused | Refused | Unserved>;
  readonly get: (id: string) => RunRecord | undefined;
  readonly list: () => readonly RunRecord[];
  /** 1 for the next Run to start; undefined when the Run is not queued. */
  readonly position: (id: string) => number | undefined;
  readonly events: (id: string) => Promise<StoredEvent[]>;
  readonly outcome: (id: string) => Promise<unknown>;
  /** Hears each new event of a Run (after it is persisted); returns how to stop listening. */
  readonly listen: (id: string, listener: Listener) => () => void;
  /** Ends a Run: a queued one at once, a running one through its container's stop; a terminal one is left as it is. */
  readonly cancel: (id: string) => Promise<RunRecord | undefined>;
  /** Rebuilds the index from disk: finished Runs as they were, queued ones queued again, running ones ended as interrupted. */
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
  /** Where a Run's agent's work was harvested to (`harvest/` in its directory); it exists once the Harvest ran and took something. */
  readonly harvestDirectory: (id: string) => string;
};

/** What a Run's end tells the metrics: its end reason, its times, and what its agent reported using. */
export type RunEnd = Pick<AgentOutcome, "reason" | "durationMs" | "queuedMs" | "result">;

export type RunServiceOptions = {
  readonly runner: AgentRunner;
  /** The runner for a request with `writable: true`: the same, its Agent Container's work/ writable (staging.writableWork); default none, and such a request is refused. */
  readonly writableRunner?: AgentRunner;
  readonly runtimeDir: string;
  readonly slots: number;
  readonly queueBound: number;
  /** Whether the runner keeps sessions (created with sessions: true); default false: a request with resumeSession is refused before it is a Run. */
  readonly sessions?: boolean;
  /** Told of a Run whose record could not be written; default: nobody (it is logged by the caller). */
  readonly onError?: (id: string, error: unknown) => void;
  /** Told of every Run that ends, with its request and how it ended (for metrics), a Run cancelled while queued too; default: nobody. */
  readonly onEnd?: (request: ServiceRunRequest, end: RunEnd) => void;
};

export function createRunService(options: RunServiceOptions): RunService {
  const store = createRunStore(options.runtimeDir);
  const records = new Map<string, RunRecord>();
  const byKey = new Map<string, string>();
  const queue: string[] = [];
  const running = new Map<string, AbortController>();
  const finished = new Map<string, Promise<void>>();
  const listeners = new Map<string, Set<Listener>>();
  const lastEventId = new Map<string, number>();
  // Idempotency keys whose first submit is still writing its Run (an upload takes a while).
  const submitting = new Map<string, Promise<unknown>>();
  let draining = false;
  let admitting = 0;
  // One writer per Run: its events are appended in order.
  const writes = new Map<string, Promise<void>>();
  // The session store each Run that has not ended will resume, kept from this process's sweeps from its submit until it ends.
  const heldSessions = new Map<string, () => void>();
  const runnerFor = (request: ServiceRunRequest): AgentRunner =>
    request.writable === true && options.writableRunner !== undefined ? options.writableRunner : options.runner;
  const holdSession = (id: string, request: ServiceRunRequest): void => {
    if (request.resumeSession !== undefined) heldSessions.set(id, runnerFor(request).holdSession(request));
  };
  const releaseSession = (id: string): void => {
    heldSessions.get(id)?.();
    heldSessions.delete(id);
  };

  const emit = (id: string, type: string, data: unknown): Promise<void> => {
    const next = (writes.get(id) ?? Promise.resolve()).then(async () => {
      const event: StoredEvent = { id: (lastEventId.get(id) ?? 0) + 1, type, data };
      lastEventId.set(id, event.id);
      await store.appendEvent(id, event);
      for (const listener of listeners.get(id) ?? []) listener(event);
    });
    writes.set(
      id,
      next.catch(() => undefined),
    );
    return next;
  };

  const setState = async (record: RunRecord, state: RunState, extra: Partial<RunRecord> = {}): Promise<RunRecord> => {
    // A Run that has ended stays as it ended, whatever is said of it afterwards.
    const current = records.get(record.id);
    if (current !== undefined && TERMINAL_STATES.has(current.state)) return current;
    const next: RunRecord = { ...record, ...extra, state, ...(TERMINAL_STATES.has(state) ? { endedAt: new Date().toISOString() } : {}) };
    records.set(next.id, next);
    // Queued on the Run's event chain before anything else is: events keep the order things happened in.
    const emitted = emit(next.id, "state", { state });
    await store.update(next);
    await emitted;
    return next;
  };

  const end = async (record: RunRecord, outcome: unknown, state: RunState): Promise<void> => {
    releaseSession(record.id);
    await store.saveOutcome(record.id, outcome);
    await setState(record, state);
    await emit(record.id, "end", outcome);
  };

  const stateOf = (outcome: AgentOutcome): RunState => (outcome.ok ? "completed" : outcome.reason === "cancelled" ? "cancelled" : "failed");

  const pump = (): void => {
    while (!draining && running.size < options.slots && queue.length > 0) {
      const id = queue.shift() as string;
      const record = records.get(id);
      if (record === undefined || record.state !== "queued") continue;
      const controller = new AbortController();
      running.set(id, controller);
      // A Run that fails here (a disk error on its record) must not take the whole service down.
      finished.set(
        id,
        start(record, controller)
          .catch((error: unknown) => options.onError?.(id, error))
          .finally(() => {
            // Ended or not (a record that could not be written), the Run no longer waits for its store.
            releaseSession(id);
            running.delete(id);
            finished.delete(id);
            pump();
          }),
      );
    }
  };

  async function start(queued: RunRecord, controller: AbortController): Promise<void> {
    let record = await setState(queued, "starting");
    const request = (await store.request(record.id)) as ServiceRunRequest;
    const { prompt, labels: _labels, writable, ...agentRequest } = request;
    const runner = runnerFor(request);
    let seenEvent = false;
    // The reader may hand over what it had queued after the Outcome: the Run has ended by then, and its end is what is told.
    let over = false;
    const outcome = await runner.run(agentRequest, prompt, {
      // One Run, one id: the library's Run (its container, Staging Directory and Outcome) takes the service's.
      runId: record.id,
      signal: controller.signal,
      harvestTo: store.harvestDirectory(record.id),
      ...(record.inputs === undefined ? {} : { inputs: { directory: store.inputsDirectory(record.id) } }),
      onEvent: (event: AgentEvent) => {
        if (over) return;
        if (!seenEvent) {
          seenEvent = true;
          void setState(record, "running").then((next) => (record = next));
        }
        void emit(record.id, "agent", event);
      },
    });
    over = true;
    await (writes.get(record.id) ?? Promise.resolve());
    record = records.get(record.id) ?? record;
    await end(record, outcome, stateOf(outcome));
    options.onEnd?.(request, outcome);
  }

  const admit = async (
    request: ServiceRunRequest,
    idempotencyKey: string | undefined,
    inputs: InputsWriter | undefined,
  ): Promise<Admitted | KeyReused | Refused> => {
    // The bound holds every Run accepted and not ended (waiting or running), counted before the
    // first await: submits that arrive together cannot all see room for one.
    if (draining) return "draining";
    if (queue.length + running.size + admitting >= options.queueBound) return "queue_full";
    admitting += 1;
    const id = newRunId();
    try {
      let given: RunRecord["inputs"];
      if (inputs !== undefined) {
        await store.open(id);
        try {
          given = await inputs(store.inputsDirectory(id));
        } catch (error) {
          // What the refusal says matters more than a failed removal; the next start removes what is left.
          await store.remove(id).catch(() => undefined);
          throw error;
        }
      }
      const record: RunRecord = {
        id,
        state: "queued",
        createdAt: new Date().toISOString(),
        labels: request.labels ?? {},
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        ...(given === undefined ? {} : { inputs: given }),
      };
      await store.create(record, request);
      records.set(record.id, record);
      if (idempotencyKey !== undefined) byKey.set(idempotencyKey, record.id);
      await emit(record.id, "state", { state: "queued" });
      holdSession(record.id, request);
      queue.push(record.id);
    } finally {
      admitting -= 1;
    }
    pump();
    return { record: records.get(id) as RunRecord, created: true };
  };

  const service: RunService = {
    submit: async (request, idempotencyKey, inputs) => {
      if (request.writable === true && (inputs === undefined || options.writableRunner === undefined)) {
        return {
          unserved:
            inputs === undefined
              ? "writable: true needs input files: the agent edits a copy of them; send the request as multipart/form-data with the part `request`, then the tar archive `inputs`, or leave writable out"
              : "writable: true is not offered by this service; leave writable out",
        };
      }
      if (request.resumeSession !== undefined && options.sessions !== true) {
        return {
          unserved: `resumeSession ${JSON.stringify(request.resumeSession)} cannot be resumed: this service keeps no sessions; leave resumeSession out, or ask its Operator to start it with agentcage serve --sessions (AGENTCAGE_SESSIONS=1 in compose)`,
        };
      }
      if (idempotencyKey === undefined) return admit(request, undefined, inputs);
      // One submit per key at a time: the ones after it answer the Run it made.
      for (let first = submitting.get(idempotencyKey); first !== undefined; first = submitting.get(idempotencyKey)) {
        await first.catch(() => undefined);
      }
      const known = byKey.get(idempotencyKey);
      if (known !== undefined) {
        const record = records.get(known) as RunRecord;
        const same = canonical(await store.request(known)) === canonical(request) && (record.inputs !== undefined) === (inputs !== undefined);
        return same ? { record, created: false } : { reused: record };
      }
      const admitted = admit(request, idempotencyKey, inputs);
      submitting.set(idempotencyKey, admitted);
      try {
        return await admitted;
      } finally {
        submitting.delete(idempotencyKey);
      }
    },
    get: (id) => records.get(id),
    list: () => [...records.values()],
    position: (id) => {
      const at = queue.indexOf(id);
      return at === -1 ? undefined : at + 1;
    },
    events: async (id) => {
      await (writes.get(id) ?? Promise.resolve());
      return store.events(id);
    },
    outcome: (id) => store.outcome(id),
    listen: (id, listener) => {
      const set = listeners.get(id) ?? new Set<Listener>();
      set.add(listener);
      listeners.set(id, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(id);
      };
    },
    cancel: async (id) => {
      const record = records.get(id);
      if (record === undefined || TERMINAL_STATES.has(record.state)) return record;
      const at = queue.indexOf(id);
      if (at !== -1) {
        queue.splice(at, 1);
        const queuedMs = Math.max(0, Date.now() - Date.parse(record.createdAt));
        await end(
          record,
          { runId: id, ok: false, reason: "cancelled", error: "the Run was cancelled while it waited for a slot", durationMs: 0, queuedMs },
          "cancelled",
        );
        const request = (await store.request(id).catch(() => undefined)) as ServiceRunRequest | undefined;
        if (request !== undefined) options.onEnd?.(request, { reason: "cancelled", durationMs: 0, queuedMs });
        return records.get(id);
      }
      running.get(id)?.abort(new Error("cancelled through the service"));
      await finished.get(id);
      return records.get(id);
    },
    recover: async () => {
      await store.prepare();
      for (const saved of await store.all()) {
        records.set(saved.id, saved);
        if (saved.idempotencyKey !== undefined) byKey.set(saved.idempotencyKey, saved.id);
        const events = await store.events(saved.id);
        lastEventId.set(saved.id, events.at(-1)?.id ?? 0);
        if (saved.state === "queued") {
          // A request that cannot be read holds nothing here; its Run fails when it starts.
          const request = (await store.request(saved.id).catch(() => undefined)) as ServiceRunRequest | undefined;
          if (request !== undefined) holdSession(saved.id, request);
          queue.push(saved.id);
        } else if (!TERMINAL_STATES.has(saved.state)) {
          // Its process is gone, and so is every chance of its Outcome: say so; the sweep removes its container,
          // and what a Harvest cut short left beside harvest/ goes.
          await recoverHarvest(store.harvestDirectory(saved.id));
          await end(
            saved,
            {
              runId: saved.id,
              ok: false,
              reason: "unavailable",
              error: "the service stopped while this Run ran; it was ended when the service started again, and its container removed",
            },
            "failed",
          );
        }
      }
      pump();
    },
    drain: async (graceMs) => {
      draining = true;
      // Runs still queued stay queued on disk for the next start, which holds their stores again.
      for (const id of queue) releaseSession(id);
      const all = Promise.all([...finished.values()]);
      const timer = setTimeout(() => {
        for (const controller of running.values()) controller.abort(new Error("the service is shutting down"));
      }, graceMs);
      await all;
      clearTimeout(timer);
    },
    counts: () => ({ queued: queue.length, running: running.size }),
    remove: async (id) => {
      const seen = records.get(id);
      if (seen === undefined) return undefined;
      if (!TERMINAL_STATES.has(seen.state)) return "live";
      // Its end may still be being written (the end event after the terminal state).
      await finished.get(id);
      await writes.get(id);
      const record = records.get(id);
      // Another DELETE got there first.
      if (record === undefined) return undefined;
      records.delete(id);
      if (record.idempotencyKey !== undefined && byKey.get(record.idempotencyKey) === id) byKey.delete(record.idempotencyKey);
      lastEventId.delete(id);
      writes.delete(id);
      await store.remove(id);
      return record;
    },
    removeEndedBefore: async (cutoff) => {
      const removed: RunRecord[] = [];
      for (const record of [...records.values()]) {
        if (!TERMINAL_STATES.has(record.state) || record.endedAt === undefined || !(Date.parse(record.endedAt) < cutoff)) continue;
        const gone = await service.remove(record.id);
        if (gone !== undefined && gone !== "live") removed.push(gone);
      }
      return removed;
    },
    harvestDirectory: (id) => store.harvestDirectory(id),
    a2aTask: (id) => (records.has(id) ? store.a2aTask(id) : Promise.resolve(undefined)),
    saveA2ATask: async (id, task) => {
      // A DELETE that lands meanwhile takes the directory: then there is nothing to keep it in.
      if (records.has(id))
        await store.saveA2ATask(id, task).catch((error: unknown) => {
          if (records.has(id)) throw error;
        });
    },
  };
  return service;
}

/** A request as JSON with every object's keys in order: two requests that differ only in field order are one. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
