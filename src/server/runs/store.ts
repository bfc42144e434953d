// The Run Store: the record of the service's Runs (their records, requests, events, Outcomes, trace
// contexts, A2A tasks, webhook deliveries and idempotency keys) behind one interface, made once by
// serve and handed to whoever reads or writes it; and RunFiles, the Run directory's files the runner
// reads and writes by path (inputs/, harvest/). Every operation is async and promises only what a
// store shared by replicas (Postgres) could keep too. Three implementations meet one contract suite
// (test/support/run-store-contract.ts): the file store, the default, in the Run directory
// (store-files.ts), the Postgres store (store-postgres.ts), and the in-memory one for route tests (store-memory.ts).

import type { AgentCli } from "../../agents/index.js";
import type { EndReason } from "../../plan/index.js";
import type { TraceHeaders } from "../../trace/index.js";
import type { KeyClaims } from "./key-claims.js";
import type { TenantUsage } from "./usage.js";

export const RUN_STATES = ["queued", "starting", "running", "completed", "failed", "cancelled"] as const;
export type RunState = (typeof RUN_STATES)[number];
export const TERMINAL_STATES: ReadonlySet<RunState> = new Set(["completed", "failed", "cancelled"]);

/** One event of a Run's stream: a sequence number per Run, a type, and its data. */
export type StoredEvent = { readonly id: number; readonly type: string; readonly data: unknown };

export type RunRecord = {
  readonly id: string;
  /** The tenant whose key made it (OPERATOR_TENANT for the start-up token, and for Runs made before tenants). */
  readonly tenant: string;
  /** The prefix of the key that made it, or OPERATOR_KEY. */
  readonly key?: string;
  readonly state: RunState;
  readonly createdAt: string;
  /** The CLI and the model its request named (no model: the CLI's default); read from request.json for a record written before they were kept. */
  readonly cli?: AgentCli;
  readonly model?: string;
  /** When it got its slot (it went `starting`); absent while it waits, and for one that never started. */
  readonly startedAt?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly idempotencyKey?: string;
  readonly endedAt?: string;
  /** What the Run's input archive held, when it was given one. */
  readonly inputs?: { readonly files: number; readonly directories: number; readonly bytes: number };
  /** What it used, once it has ended: what its agent reported (tokens) and what it cost (metered by the proxy, or the CLI's own figure). */
  readonly usage?: RunUsage;
  /** How it ended, once it has: its Outcome's reason and durationMs (for the events feed and GET /v1/usage without reading each Outcome). */
  readonly reason?: EndReason;
  readonly durationMs?: number;
};

export type RunUsage = { readonly inputTokens?: number; readonly outputTokens?: number; readonly costUsd?: number };

/**
 * One line of a Run's deliveries.jsonl: a webhook owed (`owed`: where it goes and the exact body
 * every attempt sends), one attempt to deliver it and what the receiver answered, or `abandoned`
 * (its time ran out while the service was stopped). Never a secret: the body holds none.
 */
export type StoredDelivery = {
  readonly kind: "owed" | "attempt" | "abandoned";
  readonly webhookId: string;
  readonly type: "run.started" | "run.finished";
  readonly at: string;
  /** With `owed`: the callback URL and the body. */
  readonly url?: string;
  readonly payload?: string;
  /** With `attempt`: its number (1 for the first), the receiver's HTTP status or why there was none, how long it took, the start of its answer, and when the next attempt is (none: no more). */
  readonly attempt?: number;
  readonly delivered?: boolean;
  readonly status?: number;
  readonly error?: string;
  readonly durationMs?: number;
  readonly response?: string;
  readonly nextAttemptAt?: string;
};

/** Which Runs a page holds: each filter given, newest first by (createdAt, id), after the keyset `after`. */
export type RunQuery = {
  readonly tenant?: string | undefined;
  readonly state?: RunState | undefined;
  readonly cli?: string | undefined;
  /** Every `key=value` here, each as [key, value]. */
  readonly labels?: readonly (readonly [string, string])[] | undefined;
  /** The page starts after this place in the order (the Run a cursor names), wherever that Run sorts: page 2 costs what page 1 does. */
  readonly after?: { readonly createdAt: string; readonly id: string } | undefined;
  readonly limit: number;
};

/** One page of Runs, and whether more follow it. */
export type RunPage = { readonly records: RunRecord[]; readonly more: boolean };

/** A Run a start must act on (it had not ended), and the id of the last event it appended. */
export type Recoverable = { readonly record: RunRecord; readonly lastEventId: number };

/**
 * The record of the service's Runs. One writer per Run at a time (the process that holds it); reads
 * may come from anyone. A Run is in the store from `create` until `remove`; an operation on a Run
 * that is not rejects, or resolves as said below.
 */
export type RunStore = {
  /**
   * Records a new Run: its record, the request it was accepted with, and its caller's trace context
   * when one was sent. All or nothing as `get` and `page` see it: a Run is listed only once its record,
   * request and trace are stored, and a create cut short by a crash leaves nothing listed.
   */
  readonly create: (record: RunRecord, request: unknown, trace?: TraceHeaders) => Promise<void>;
  /** Replaces a Run's record. Updates of one Run land in the order they were asked, each one whole: the last asked is the one read. */
  readonly update: (record: RunRecord) => Promise<void>;
  /** One Run's record; undefined when it is not recorded. A record of an earlier version reads as today's. */
  readonly get: (id: string) => Promise<RunRecord | undefined>;
  /** A page of Runs, newest first: what GET /v1/runs lists. Costs the page, not the Runs kept. */
  readonly page: (query: RunQuery) => Promise<RunPage>;
  /** Each tenant's Runs that ended at or after `since` (epoch ms), summed (one tenant's only when named), by tenant name. Costs the days asked, not the Runs kept. */
  readonly usage: (since: number, tenant?: string) => Promise<TenantUsage[]>;
  /** The Runs that had not ended, oldest first, each with its last event's id: what a start queues again or ends as interrupted. */
  readonly recoverable: () => Promise<Recoverable[]>;
  /** The ids of the Runs that ended before `cutoff` (epoch ms): what retention removes. */
  readonly endedBefore: (cutoff: number) => Promise<string[]>;
  /** Whose a session is: the tenant and CLI of the oldest Run kept whose Outcome ended with it; undefined when none did. */
  readonly sessionOwner: (session: string) => Promise<{ readonly tenant: string; readonly cli: string | undefined } | undefined>;
  /** The ids of the Runs whose deliveries hold a webhook owed and neither delivered nor given up: what a start resumes. */
  readonly owing: () => Promise<string[]>;
  /** Every tenant with a Run kept, by name. */
  readonly tenants: () => Promise<string[]>;
  /** What the Run was asked, as it was accepted; rejects when the Run is not recorded. */
  readonly request: (id: string) => Promise<unknown>;
  /** The trace context its caller sent; undefined when none (or no such Run). */
  readonly trace: (id: string) => Promise<TraceHeaders | undefined>;
  /**
   * Appends the next events of a Run, in id order, in one write (those told while the write before
   * was under way). Its writer appends them one write at a time; a later read sees them in that
   * order. A crash may lose the last ones appended, never one before them.
   */
  readonly appendEvents: (id: string, events: readonly StoredEvent[]) => Promise<void>;
  /** A Run's events so far, in the order appended; none for a Run that has none (or no such Run). */
  readonly events: (id: string) => Promise<StoredEvent[]>;
  /** Keeps how the Run ended (its Outcome, whole); saved once, before its terminal record. */
  readonly saveOutcome: (id: string, outcome: unknown) => Promise<void>;
  /** Its Outcome; undefined until it is saved. */
  readonly outcome: (id: string) => Promise<unknown>;
  /** Keeps the A2A task a Run was made for (the SDK's JSON), replacing the one before. */
  readonly saveA2ATask: (id: string, task: unknown) => Promise<void>;
  /** The A2A task a Run was made for; undefined when none was saved. */
  readonly a2aTask: (id: string) => Promise<unknown>;
  /** Appends one line of a Run's webhook deliveries, in the order asked; false when the Run is not recorded (it was removed): nothing is kept. */
  readonly appendDelivery: (id: string, delivery: StoredDelivery) => Promise<boolean>;
  /** A Run's delivery lines, in the order appended. */
  readonly deliveries: (id: string) => Promise<StoredDelivery[]>;
  /** Forgets a Run and everything kept of it here; nothing when it is not recorded. */
  readonly remove: (id: string) => Promise<void>;
  /**
   * Readies the store at start, before any other call: opens its index (the file store: its index
   * files, and the Run directories they do not know of, read once: a directory an earlier version
   * wrote), removes what a submit that never finished left (a crash between its inputs and its
   * record) and resolves with those Runs' ids.
   */
  readonly prepare: () => Promise<string[]>;
  /** Each tenant's idempotency keys, claimed one step at a time (key-claims.ts). */
  readonly keys: KeyClaims;
};

/** What `agentcage runs` reads of a store it does not hold: reads only; `all`: every Run recorded, oldest first (by createdAt). */
export type RunReader = Pick<RunStore, "request" | "outcome" | "events"> & { readonly all: () => Promise<RunRecord[]> };

/**
 * A Run's directory: the files the runner is handed by path (its inputs, what its agent left), so
 * always on the service's disk, whatever keeps the record. Opened before the Run is recorded (its
 * inputs are written first), removed with it.
 */
export type RunFiles = {
  /** Where a Run's input files are extracted (`inputs/`, which does not exist until they are). */
  readonly inputsDirectory: (id: string) => string;
  /** Where its agent's work is harvested (`harvest/`); it exists once the Harvest ran and took something. */
  readonly harvestDirectory: (id: string) => string;
  /** Makes the Run's directory (readable by the service's user only). */
  readonly open: (id: string) => Promise<void>;
  /** Removes the Run's directory and all it holds; nothing when there is none. */
  readonly remove: (id: string) => Promise<void>;
};
