// The file store, the default Run Store: every Run's record in its Run directory,
// `<runtimeDir>/service/runs/<id>/`: request.json (what was asked), state.json (where it is),
// events.jsonl (every event, numbered, the log an event stream replays from), outcome.json (how it
// ended), a2a-task.json (the task an A2A caller made of it), deliveries.jsonl (each webhook it owes and
// each attempt), trace.json (its caller's W3C trace context), beside the RunFiles inputs/ and harvest/.
// The format is the one deployments already hold: a directory written by an earlier version opens
// unchanged (test/fixtures/runtime-dir). A directory without state.json is a submit that never
// finished. One Run, one directory, one writer: this process, one write of each file at a time.

import { appendFile, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { AGENT_CLIS, type AgentCli } from "../../agents/index.js";
import { RUN_ID_PATTERN } from "../../staging/index.js";
import type { TraceHeaders } from "../../trace/index.js";
import { OPERATOR_TENANT } from "../caller.js";
import { createKeyClaims } from "./key-claims.js";
import type { RunFiles, RunReader, RunRecord, RunStore, StoredDelivery, StoredEvent } from "./store.js";

/** Where the file store keeps its Runs under a runtime directory: absolute, whatever the caller wrote, since the runner is handed paths in it. */
export function runsDirectory(runtimeDir: string): string {
  return join(resolve(runtimeDir), "service", "runs");
}

/** The file store's Runs and their directories under one runtime directory: what a RunService is made over. */
export function fileRuns(runtimeDir: string): { readonly store: RunStore; readonly files: RunFiles } {
  return { store: createFileRunStore(runtimeDir), files: createFileRunFiles(runsDirectory(runtimeDir)) };
}

/** The Run directories' files under `<runtimeDir>/service/runs/`: the file store's, and the one the in-memory store is given. */
export function createFileRunFiles(root: string): RunFiles {
  const directory = (id: string) => join(root, id);
  return {
    inputsDirectory: (id) => join(directory(id), "inputs"),
    harvestDirectory: (id) => join(directory(id), "harvest"),
    open: async (id) => void (await mkdir(directory(id), { recursive: true, mode: 0o700 })),
    remove: (id) => rm(directory(id), { recursive: true, force: true }),
  };
}

/**
 * The file store over a runtime directory. Idempotency keys are claimed in this process's memory
 * (one process holds a runtime directory) and filed again from the records at each start.
 */
export function createFileRunStore(runtimeDir: string): RunStore {
  const root = runsDirectory(runtimeDir);
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
  return {
    ...readerOver(root),
    keys: createKeyClaims(),
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
    appendEvents: (id, events) =>
      appendFile(join(directory(id), "events.jsonl"), events.map((event) => `${JSON.stringify(event)}\n`).join(""), { mode: 0o600 }),
    // appendFile makes no directory: a removed Run's is not made again.
    appendDelivery: (id, delivery) =>
      appendFile(join(directory(id), "deliveries.jsonl"), `${JSON.stringify(delivery)}\n`, { mode: 0o600 }).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return false;
          throw error;
        },
      ),
    deliveries: (id) => readLines<StoredDelivery>(join(directory(id), "deliveries.jsonl")),
    saveOutcome: (id, outcome) => writeJson(join(directory(id), "outcome.json"), outcome),
    a2aTask: (id) => readJson(join(directory(id), "a2a-task.json")).catch(() => undefined),
    saveA2ATask: (id, task) => writeJson(join(directory(id), "a2a-task.json"), task),
  };
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
