// The service's record of every Run it accepted, on disk under `<runtimeDir>/service/runs/<id>/`:
// request.json (what was asked), state.json (where it is), events.jsonl (every event, numbered, the
// log an event stream replays from), outcome.json (how it ended), inputs/ (the files it was given),
// harvest/ (what its agent left), a2a-task.json (the task an A2A caller made of it, with its
// history), deliveries.jsonl (each webhook it owes and each attempt to deliver it), trace.json (its caller's
// W3C trace context, when one was sent). The service's state after a restart is rebuilt from these files
// alone; a directory without state.json is a submit that never finished. One Run, one directory,
// one writer: this process, and one write of each file at a time, in the order they were asked.

import { appendFile, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { AGENT_CLIS, type AgentCli } from "../agents/index.js";
import type { EndReason } from "../plan/index.js";
import { RUN_ID_PATTERN } from "../staging/index.js";
import type { TraceHeaders } from "../trace/index.js";
import { OPERATOR_TENANT } from "./caller.js";
import { createKeyClaims, type KeyClaims } from "./key-claims.js";

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

export type RunStore = {
  readonly root: string;
  /** Writes a new Run's request and record, and its caller's trace context when it sent one (so a queued Run keeps it across a restart). */
  readonly create: (record: RunRecord, request: unknown, trace?: TraceHeaders) => Promise<void>;
  /** The trace context its caller sent, undefined when none. */
  readonly trace: (id: string) => Promise<TraceHeaders | undefined>;
  readonly update: (record: RunRecord) => Promise<void>;
  readonly appendEvent: (id: string, event: StoredEvent) => Promise<void>;
  readonly events: (id: string) => Promise<StoredEvent[]>;
  readonly request: (id: string) => Promise<unknown>;
  readonly outcome: (id: string) => Promise<unknown>;
  readonly saveOutcome: (id: string, outcome: unknown) => Promise<void>;
  /** The A2A task a Run was made for, as the SDK's JSON; undefined when none was saved. */
  readonly a2aTask: (id: string) => Promise<unknown>;
  readonly saveA2ATask: (id: string, task: unknown) => Promise<void>;
  /** Adds a line to a Run's deliveries.jsonl; a Run that was removed keeps nothing (ENOENT). */
  readonly appendDelivery: (id: string, delivery: StoredDelivery) => Promise<void>;
  readonly deliveries: (id: string) => Promise<StoredDelivery[]>;
  /** Every Run on disk, oldest first, for the index rebuilt at start. */
  readonly all: () => Promise<RunRecord[]>;
  readonly directory: (id: string) => string;
  /** Where a Run's input files are extracted (`inputs/`) and its agent's work harvested (`harvest/`). */
  readonly inputsDirectory: (id: string) => string;
  readonly harvestDirectory: (id: string) => string;
  /** Makes a Run's directory before its record: its inputs go there first. */
  readonly open: (id: string) => Promise<void>;
  /** Removes a Run's directory and all it holds. */
  readonly remove: (id: string) => Promise<void>;
  /** Makes the runs directory, and removes the directories of submits that never finished (no state.json): a crash mid-upload. */
  readonly prepare: () => Promise<string[]>;
  /** Each tenant's idempotency keys, claimed one step at a time (key-claims.ts); the file store keeps them in memory, filed from the records at start. */
  readonly keys: KeyClaims;
};

export function createRunStore(runtimeDir: string): RunStore {
  // Absolute whatever the caller wrote: a Run's inputs and harvestTo are handed to the runner as paths.
  const root = join(resolve(runtimeDir), "service", "runs");
  const directory = (id: string) => join(root, id);
  // Writes of one file wait for the one before: two at once would share the temporary file, and
  // the second rename would find it gone (or an older state would land last).
  const writing = new Map<string, Promise<void>>();
  const writeJson = (path: string, value: unknown): Promise<void> => {
    const text = `${JSON.stringify(value)}\n`;
    const written = (writing.get(path) ?? Promise.resolve()).then(async () => {
      const temporary = `${path}.tmp-${process.pid}`;
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, path);
    });
    const settled = written.catch(() => undefined);
    writing.set(path, settled);
    void settled.then(() => {
      if (writing.get(path) === settled) writing.delete(path);
    });
    return written;
  };
  const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, "utf8"));
  return {
    root,
    keys: createKeyClaims(),
    directory,
    inputsDirectory: (id) => join(directory(id), "inputs"),
    harvestDirectory: (id) => join(directory(id), "harvest"),
    open: async (id) => void (await mkdir(directory(id), { recursive: true, mode: 0o700 })),
    remove: (id) => rm(directory(id), { recursive: true, force: true }),
    prepare: async () => {
      await mkdir(root, { recursive: true, mode: 0o700 });
      const removed: string[] = [];
      for (const name of await readdir(root)) {
        if (!RUN_ID_PATTERN.test(name)) continue;
        const state = await lstat(join(directory(name), "state.json")).catch((error: NodeJS.ErrnoException) => error.code);
        if (state !== "ENOENT") continue;
        await rm(directory(name), { recursive: true, force: true });
        removed.push(name);
      }
      return removed;
    },
    create: async (record, request, trace) => {
      await mkdir(directory(record.id), { recursive: true, mode: 0o700 });
      await writeJson(join(directory(record.id), "request.json"), request);
      // Before state.json: a Run whose record is read at the next start has its trace beside it.
      if (trace !== undefined) await writeJson(join(directory(record.id), "trace.json"), trace);
      await writeJson(join(directory(record.id), "state.json"), record);
    },
    trace: async (id) => (await readJson(join(directory(id), "trace.json")).catch(() => undefined)) as TraceHeaders | undefined,
    update: (record) => writeJson(join(directory(record.id), "state.json"), record),
    appendEvent: (id, event) => appendFile(join(directory(id), "events.jsonl"), `${JSON.stringify(event)}\n`, { mode: 0o600 }),
    events: (id) => readLines<StoredEvent>(join(directory(id), "events.jsonl")),
    // appendFile makes no directory: a removed Run's is not made again.
    appendDelivery: (id, delivery) => appendFile(join(directory(id), "deliveries.jsonl"), `${JSON.stringify(delivery)}\n`, { mode: 0o600 }),
    deliveries: (id) => readLines<StoredDelivery>(join(directory(id), "deliveries.jsonl")),
    request: (id) => readJson(join(directory(id), "request.json")),
    outcome: (id) => readJson(join(directory(id), "outcome.json")).catch(() => undefined),
    saveOutcome: (id, outcome) => writeJson(join(directory(id), "outcome.json"), outcome),
    a2aTask: (id) => readJson(join(directory(id), "a2a-task.json")).catch(() => undefined),
    saveA2ATask: (id, task) => writeJson(join(directory(id), "a2a-task.json"), task),
    all: async () => {
      const names = await readdir(root).catch(() => [] as string[]);
      const records: RunRecord[] = [];
      for (const name of names) {
        const saved = (await readJson(join(directory(name), "state.json")).catch(() => undefined)) as
          | (Omit<RunRecord, "tenant"> & { runId?: unknown; tenant?: string })
          | undefined;
        if (saved?.id !== name) continue;
        // An earlier version kept the library's own run id beside the Run's; the Run's id is the one id now.
        // Runs recorded before there were tenants are the Operator's.
        const { runId: _earlier, ...record } = saved;
        const asked = record.cli === undefined ? await askedOf(directory(name)) : {};
        records.push({ ...record, ...asked, tenant: record.tenant ?? OPERATOR_TENANT });
      }
      return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
  };
}

/** The CLI and model a Run's request.json named, for a record kept before its record held them; nothing when it cannot be read. */
async function askedOf(directory: string): Promise<Pick<RunRecord, "cli" | "model">> {
  const request = (await readFile(join(directory, "request.json"), "utf8").then(JSON.parse, () => undefined)) as { cli?: unknown; model?: unknown } | undefined;
  return {
    ...((AGENT_CLIS as readonly unknown[]).includes(request?.cli) ? { cli: request?.cli as AgentCli } : {}),
    ...(typeof request?.model === "string" ? { model: request.model } : {}),
  };
}

/** A JSON-lines file's lines; none when it does not exist. A line cut short by a crash is the last one; what came before it stands. */
async function readLines<T>(path: string): Promise<T[]> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").flatMap((line) => {
    try {
      return line === "" ? [] : [JSON.parse(line) as T];
    } catch {
      return [];
    }
  });
}
