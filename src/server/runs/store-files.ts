// The file store, the default Run Store: every Run's record in its Run directory,
// `<runtimeDir>/service/runs/<id>/`: request.json (what was asked), state.json (where it is),
// events.jsonl (every event, numbered, the log an event stream replays from), outcome.json (how it
// ended), a2a-task.json (the task an A2A caller made of it), deliveries.jsonl (each webhook it owes and
// each attempt), trace.json (its caller's W3C trace context), beside the RunFiles inputs/ and harvest/.
// The format is the one deployments already hold: a directory written by an earlier version opens
// unchanged (test/fixtures/runtime-dir), its Runs read once into the index at its first start. A
// directory without state.json is a submit that never finished. One Run, one directory, one writer:
// this process, one write of each file at a time. Beside runs/, the index (store-files-index.ts): what
// the queries are answered from, so a start and a page cost the same with a million Runs kept. Once
// the index holds every change of runs/ (none under way, and quiet for INDEX_STAMP_QUIET_MS), its
// journal is stamped with runs/'s mtime: a start that finds runs/ unchanged since trusts the index and
// lists no directory; any other start mends the index from the directories' names.

import { appendFile, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { AGENT_CLIS, type AgentCli } from "../../agents/index.js";
import { RUN_ID_PATTERN } from "../../staging/index.js";
import type { TraceHeaders } from "../../trace/index.js";
import { OPERATOR_TENANT } from "../caller.js";
import { createKeyClaims, type KeyClaims } from "./key-claims.js";
import { createRunIndex, entryOf, type IndexEntry, owedAfter, type RunIndex, sessionOf } from "./run-index.js";
import type { Recoverable, RunFiles, RunReader, RunRecord, RunStore, StoredDelivery, StoredEvent } from "./store.js";
import { TERMINAL_STATES } from "./store.js";
import { INDEX_COMPACT_MIN_LINES, type IndexFiles, openIndexFiles } from "./store-files-index.js";

/** Where the file store keeps its Runs under a runtime directory: absolute, whatever the caller wrote, since the runner is handed paths in it. */
export function runsDirectory(runtimeDir: string): string {
  return join(resolve(runtimeDir), "service", "runs");
}

/** The file store's Runs and their directories under one runtime directory: what a RunService is made over. */
export function fileRuns(runtimeDir: string): { readonly store: RunStore; readonly files: RunFiles } {
  const { store, changes } = openFileRunStore(runtimeDir);
  return { store, files: createFileRunFiles(runsDirectory(runtimeDir), changes) };
}

/** Told of each change of runs/ a RunFiles makes: begun before it, settled after it when the index has nothing to learn of it. */
type DirectoryChanges = { readonly begin: (id: string) => void; readonly settled: (id: string) => void };

/** The Run directories' files under `<runtimeDir>/service/runs/`: the file store's, and the one the in-memory store is given. */
export function createFileRunFiles(root: string, changes?: DirectoryChanges): RunFiles {
  const directory = (id: string) => join(root, id);
  return {
    inputsDirectory: (id) => join(directory(id), "inputs"),
    harvestDirectory: (id) => join(directory(id), "harvest"),
    // Settled by the store's create (or by a removal): until then it is a submit under way.
    open: async (id) => {
      changes?.begin(id);
      await mkdir(directory(id), { recursive: true, mode: 0o700 });
    },
    remove: async (id) => {
      changes?.begin(id);
      await rm(directory(id), { recursive: true, force: true });
      changes?.settled(id);
    },
  };
}

/** How long runs/ and the index must have been quiet (no change under way, none written) before the journal is stamped; more than any file system's time step. */
export const INDEX_STAMP_QUIET_MS = 1_000;

/**
 * The file store over a runtime directory. Its index (store-files-index.ts) answers the queries;
 * each Run's files answer what is asked of that Run. Idempotency keys are claimed in this process's
 * memory (one process holds a runtime directory) and filed again from the index at each start.
 */
export function createFileRunStore(runtimeDir: string, options: FileRunStoreOptions = {}): RunStore {
  return openFileRunStore(runtimeDir, options).store;
}

export type FileRunStoreOptions = {
  /** Journal lines past which (and past the entries kept) it is folded into a snapshot; default INDEX_COMPACT_MIN_LINES. */
  readonly compactAfterLines?: number;
  /** How long runs/ must be quiet before the journal is stamped; default INDEX_STAMP_QUIET_MS (shorter only in tests, on a file system whose times step finer); Infinity: never (a store that only reads what another process writes). */
  readonly stampQuietMs?: number;
};

function openFileRunStore(
  runtimeDir: string,
  { compactAfterLines = INDEX_COMPACT_MIN_LINES, stampQuietMs = INDEX_STAMP_QUIET_MS }: FileRunStoreOptions = {},
): { readonly store: RunStore; readonly changes: DirectoryChanges } {
  const root = runsDirectory(runtimeDir);
  const directory = (id: string) => join(root, id);
  const index = createRunIndex();
  const files = openIndexFiles(dirname(root));
  const keys = createKeyClaims();
  // Writes of one file wait for the one before: two at once would share the temporary file, and
  // the second rename would find it gone (or an older state would land last).
  const writing = new Map<string, Promise<void>>();
  const writeJson = (path: string, value: unknown, then: () => Promise<void> = async () => undefined): Promise<void> => {
    const text = `${JSON.stringify(value)}\n`;
    const written = (writing.get(path) ?? Promise.resolve()).then(async () => {
      const temporary = `${path}.tmp-${process.pid}`;
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, path);
      // In the chain: the index hears of one file's writes in the order they landed.
      await then();
    });
    const settled = written.catch(() => undefined);
    writing.set(path, settled);
    void settled.then(() => {
      if (writing.get(path) === settled) writing.delete(path);
    });
    return written;
  };
  // The Runs whose directory is being made or removed and whose index line is not written yet.
  const unsettled = new Set<string>();
  let lastWrite = Date.now();
  let stamping: NodeJS.Timeout | undefined;
  const stampSoon = (after = stampQuietMs) => {
    if (!Number.isFinite(stampQuietMs)) return;
    lastWrite = Math.max(lastWrite, Date.now() - stampQuietMs + after);
    if (stamping === undefined) stamping = setTimeout(() => void stamp(), after);
  };
  /** Stamps the journal with runs/'s mtime when nothing of it is under way and it has been quiet: then the index holds all of it. */
  const stamp = async () => {
    stamping = undefined;
    if (unsettled.size > 0 || compacting) return;
    const since = Date.now() - lastWrite;
    if (since < stampQuietMs) return stampSoon(stampQuietMs - since);
    const now = await stat(root, { bigint: true }).catch(() => undefined);
    if (now === undefined || unsettled.size > 0 || compacting) return;
    // A change in the same step of the file system's clock would leave the same mtime: only one older than that is stamped.
    const age = Date.now() - Number(now.mtimeMs);
    if (age < stampQuietMs) return stampSoon(stampQuietMs - age);
    if (files.stamped(String(now.mtimeNs))) return;
    await files.append({ stamp: String(now.mtimeNs) }).catch(() => undefined);
  };
  const settled = (id: string) => {
    unsettled.delete(id);
    stampSoon();
  };
  let compacting = false;
  const compact = () => {
    compacting = true;
    void files
      .compact(() => index.ordered())
      .catch(() => undefined)
      .finally(() => {
        compacting = false;
        stampSoon();
      });
  };
  /** The entry, in the index now and in its journal once this resolves; the journal folded into a snapshot when it has grown past the entries. */
  const put = async (entry: IndexEntry): Promise<void> => {
    index.upsert(entry);
    await files.append(index.get(entry.id) as IndexEntry);
    stampSoon();
    if (!compacting && files.lines() > Math.max(compactAfterLines, index.size())) compact();
  };
  const drop = async (id: string): Promise<void> => {
    if (index.get(id) === undefined) return;
    index.remove(id);
    await files.append({ id, removed: true });
    stampSoon();
  };
  const reader = readerOver(root);
  let opened: Promise<string[]> | undefined;
  const open = () =>
    (opened ??= openIndex(root, index, files, put, keys).then(({ removed, outdated }) => {
      if (outdated) compact();
      stampSoon();
      return removed;
    }));
  const known = async (id: string): Promise<boolean> => {
    await open();
    return index.get(id) !== undefined;
  };
  const recordOf = (id: string) => readRecord(directory(id));
  const store: RunStore = {
    request: reader.request,
    events: reader.events,
    outcome: reader.outcome,
    keys,
    prepare: open,
    get: async (id) => ((await known(id)) ? recordOf(id) : undefined),
    page: async (query) => {
      await open();
      const { entries, more } = index.page(query);
      const records = await Promise.all(entries.map((entry) => recordOf(entry.id)));
      return { records: records.filter((record): record is RunRecord => record !== undefined), more };
    },
    usage: async (since, tenant) => {
      await open();
      return index.usage(since, tenant);
    },
    recoverable: async () => {
      await open();
      const found: Recoverable[] = [];
      for (const entry of index.live()) {
        const record = await recordOf(entry.id);
        if (record === undefined || TERMINAL_STATES.has(record.state)) continue;
        const events = await reader.events(entry.id);
        found.push({ record, lastEventId: events.at(-1)?.id ?? 0 });
      }
      return found;
    },
    endedBefore: async (cutoff) => {
      await open();
      return index.endedBefore(cutoff);
    },
    sessionOwner: async (session) => {
      await open();
      const owner = index.sessionOwner(session);
      return owner === undefined ? undefined : { tenant: owner.tenant, cli: owner.cli };
    },
    owing: async () => {
      await open();
      return index.owing();
    },
    tenants: async () => {
      await open();
      return index.tenants();
    },
    remove: async (id) => {
      await open();
      // Out of runs/ in one step, then forgotten by the index, then its files go: a crash anywhere
      // leaves either the whole Run or none of it (what is left aside is cleared at the next start).
      const aside = join(root, `${REMOVED_PREFIX}${id}-${process.pid}-${Date.now()}`);
      unsettled.add(id);
      const moved = await rename(directory(id), aside).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return false;
          throw error;
        },
      );
      await drop(id);
      if (moved) await rm(aside, { recursive: true, force: true });
      settled(id);
    },
    create: async (record, request, trace) => {
      await open();
      unsettled.add(record.id);
      await mkdir(directory(record.id), { recursive: true, mode: 0o700 });
      await writeJson(join(directory(record.id), "request.json"), request);
      // Before state.json: a Run whose record is read at the next start has its trace beside it.
      if (trace !== undefined) await writeJson(join(directory(record.id), "trace.json"), trace);
      await writeJson(join(directory(record.id), "state.json"), record, () => put(entryOf(asJson(record))));
      settled(record.id);
    },
    trace: async (id) => (await readJson(join(directory(id), "trace.json")).catch(() => undefined)) as TraceHeaders | undefined,
    update: async (record) => {
      await open();
      await writeJson(join(directory(record.id), "state.json"), record, async () => {
        const before = index.get(record.id);
        if (before !== undefined) await put(entryOf(asJson(record), before));
      });
    },
    appendEvents: (id, events) =>
      appendFile(join(directory(id), "events.jsonl"), events.map((event) => `${JSON.stringify(event)}\n`).join(""), { mode: 0o600 }),
    appendDelivery: async (id, delivery) => {
      await open();
      // A webhook owed is in the index before its line is kept, and one settled leaves it after: a crash
      // between the two leaves the index owing more than deliveries.jsonl says, which a start reads and drops.
      const before = index.get(id);
      const owes = before === undefined ? undefined : owedAfter(before.owes, delivery);
      const more = before !== undefined && owes !== before.owes && delivery.kind === "owed";
      if (more) await put({ ...before, owes: owes ?? [] });
      // appendFile makes no directory: a removed Run's is not made again.
      const kept = await appendFile(join(directory(id), "deliveries.jsonl"), `${JSON.stringify(delivery)}\n`, { mode: 0o600 }).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return false;
          throw error;
        },
      );
      const now = index.get(id);
      if (kept && !more && now !== undefined && owes !== before?.owes) await put({ ...now, owes: owedAfter(now.owes, delivery) ?? [] });
      return kept;
    },
    deliveries: (id) => readLines<StoredDelivery>(join(directory(id), "deliveries.jsonl")),
    saveOutcome: async (id, outcome) => {
      await open();
      await writeJson(join(directory(id), "outcome.json"), outcome, async () => {
        const before = index.get(id);
        const session = sessionOf(outcome);
        if (before !== undefined && session !== undefined && before.session !== session) await put({ ...before, session });
      });
    },
    a2aTask: (id) => readJson(join(directory(id), "a2a-task.json")).catch(() => undefined),
    saveA2ATask: (id, task) => writeJson(join(directory(id), "a2a-task.json"), task),
  };
  const changes: DirectoryChanges = {
    // A directory the index knows exists already (a Run's start opens it again): nothing in runs/ changes.
    begin: (id) => {
      if (index.get(id) === undefined) unsettled.add(id);
    },
    // A directory the index knows is settled by the store's own removal.
    settled: (id) => {
      if (index.get(id) === undefined) settled(id);
    },
  };
  return { store, changes };
}

/** What a removal moves a Run's directory to before it deletes it: not a Run id, so never read as a Run. */
const REMOVED_PREFIX = ".removed-";

/**
 * Opens the index at start: its files read; when their stamp is not runs/'s mtime now (a crash, a
 * change by hand, an earlier version), mended from the Run directories by their names alone (one
 * readdir): an entry whose directory is gone is dropped; a directory it does not know (written by an
 * earlier version, or by a create whose index line a crash took) is read once. Either way a Run that
 * had not ended is read again (its last state may have landed after its index line), and a directory
 * without state.json is a submit that never finished, and goes. Ended Runs cost no file read.
 * Resolves with the ids of the submits removed, and whether the snapshot is of an earlier format.
 */
async function openIndex(
  root: string,
  index: RunIndex,
  files: IndexFiles,
  put: (entry: IndexEntry) => Promise<void>,
  keys: KeyClaims,
): Promise<{ readonly removed: string[]; readonly outdated: boolean }> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const { entries, stamp, outdated } = await files.load();
  const current =
    stamp !== undefined &&
    (await stat(root, { bigint: true }).then(
      (now) => String(now.mtimeNs) === stamp,
      () => false,
    ));
  let names: Set<string> | undefined;
  if (!current) {
    names = new Set<string>();
    for (const name of await readdir(root)) {
      if (name.startsWith(REMOVED_PREFIX)) await rm(join(root, name), { recursive: true, force: true });
      else if (RUN_ID_PATTERN.test(name)) names.add(name);
    }
  }
  const held = names;
  index.load(entries.filter((entry) => TERMINAL_STATES.has(entry.state) && (held === undefined || held.has(entry.id))));
  const known = new Map<string, IndexEntry>();
  for (const entry of entries) if (held === undefined ? !TERMINAL_STATES.has(entry.state) : true) known.set(entry.id, entry);
  const toRead = held === undefined ? [...known.keys()] : [...held].filter((name) => !TERMINAL_STATES.has(known.get(name)?.state ?? "queued"));
  const removed: string[] = [];
  const gone: string[] = [];
  for (let at = 0; at < toRead.length; at += READ_AT_ONCE) {
    await Promise.all(
      toRead.slice(at, at + READ_AT_ONCE).map(async (name) => {
        const found = await readEntry(join(root, name), known.get(name));
        if (found === "unfinished") {
          await rm(join(root, name), { recursive: true, force: true });
          removed.push(name);
          if (known.has(name)) gone.push(name);
        } else if (found !== undefined) await put(found);
      }),
    );
  }
  // The files forget what runs/ no longer holds, so that a stamp after this start vouches for them.
  if (held !== undefined) for (const entry of entries) if (!held.has(entry.id)) gone.push(entry.id);
  await Promise.all(gone.map((id) => files.append({ id, removed: true })));
  for (const entry of index.entries()) if (entry.idempotencyKey !== undefined) await keys.made(entry.tenant, entry.idempotencyKey, entry.id);
  return { removed: removed.sort(), outdated };
}

/** Run directories read at once while an index is mended (the first start over a directory of an earlier version reads each one). */
const READ_AT_ONCE = 64;

/**
 * The index entry of a Run read from its directory: its state.json, and once it has ended the session
 * its Outcome ended with; the webhooks it owes from its deliveries when the index knew nothing of it.
 * "unfinished": no state.json (a submit that never finished); undefined: one that cannot be read.
 */
async function readEntry(directory: string, before: IndexEntry | undefined): Promise<IndexEntry | "unfinished" | undefined> {
  const missing = await lstat(join(directory, "state.json")).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === "ENOENT",
  );
  if (missing) return "unfinished";
  const record = await readRecord(directory);
  if (record === undefined) return undefined;
  const session = TERMINAL_STATES.has(record.state) ? sessionOf(await readJson(join(directory, "outcome.json")).catch(() => undefined)) : undefined;
  let owes = before?.owes;
  if (before === undefined) for (const line of await readLines<StoredDelivery>(join(directory, "deliveries.jsonl"))) owes = owedAfter(owes, line);
  return entryOf(record, { ...(session === undefined ? {} : { session }), ...(owes === undefined ? {} : { owes }) });
}

/** A record as JSON keeps it: a field left undefined is not there. */
function asJson(record: RunRecord): RunRecord {
  return JSON.parse(JSON.stringify(record)) as RunRecord;
}

/** The file store's records, read only: for `agentcage runs`, beside a service that may be writing them. Makes and removes nothing. */
export function readFileRunStore(runtimeDir: string): RunReader {
  return readerOver(runsDirectory(runtimeDir));
}

function readerOver(root: string): RunReader {
  const directory = (id: string) => join(root, id);
  return {
    events: (id) => readLines<StoredEvent>(join(directory(id), "events.jsonl")),
    request: (id) => readJson(join(directory(id), "request.json")),
    outcome: (id) => readJson(join(directory(id), "outcome.json")).catch(() => undefined),
    all: async () => {
      const names = await readdir(root).catch(() => [] as string[]);
      const records: RunRecord[] = [];
      for (const name of names) {
        const record = RUN_ID_PATTERN.test(name) ? await readRecord(directory(name)) : undefined;
        if (record !== undefined) records.push(record);
      }
      return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
  };
}

/**
 * A Run's record from its state.json, as today's: an earlier version kept the library's own run id
 * beside the Run's (the Run's id is the one id now); Runs recorded before there were tenants are the
 * Operator's; before records kept the CLI and model, its request named them. Undefined when it cannot
 * be read, or names another Run.
 */
async function readRecord(directory: string): Promise<RunRecord | undefined> {
  const saved = (await readJson(join(directory, "state.json")).catch(() => undefined)) as
    | (Omit<RunRecord, "tenant"> & { runId?: unknown; tenant?: string })
    | undefined;
  if (saved?.id !== basename(directory)) return undefined;
  const { runId: _earlier, ...record } = saved;
  const asked = record.cli === undefined ? await askedOf(directory) : {};
  return { ...record, ...asked, tenant: record.tenant ?? OPERATOR_TENANT };
}

const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, "utf8"));

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
