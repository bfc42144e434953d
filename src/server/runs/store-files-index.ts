// The file store's index on disk, under `<runtimeDir>/service/`: runs-index.json, a snapshot of every
// entry sorted by (createdAt, id), one compact array a line with its repeated strings (tenants, states,
// CLIs, reasons, label sets) written once in a table (written whole to a temporary file, then renamed
// over it), and runs-index.jsonl, the journal of what changed since, one JSON line each (an entry,
// `{"id":…,"removed":true}`, or a stamp: the Run directories' mtime once the index held all of them),
// appended in the order the entries changed in memory. Both name a generation: a journal older than the
// snapshot is already in it. A line cut short by a crash is skipped. A snapshot of the first format (one
// object an entry) still loads, and is written anew. The index is derived, never the record: the Run
// directories are, and a start mends the index from them (store-files.ts).

import { readFileSync } from "node:fs";
import { appendFile, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { IndexEntry } from "./run-index.js";

/** The journal is folded into a new snapshot once it holds more lines than this and than the entries kept. */
export const INDEX_COMPACT_MIN_LINES = 10_000;

type Removed = { readonly id: string; readonly removed: true };
type Header = { readonly generation: number };
/** The Run directories' mtime (ns, as text) when the index held every change of them. */
type Stamp = { readonly stamp: string };

/** The snapshot's format: 2, sorted rows over a string table (ROW_FIELDS); the first (no `format`) held one object an entry. */
const SNAPSHOT_FORMAT = 2;

/** What the index files hold. */
export type LoadedIndex = {
  /** Every entry, the journal replayed over the snapshot, sorted by (createdAt, id). */
  readonly entries: IndexEntry[];
  /** The stamp the journal ends with: the runs/ directory's mtime when the index was last known to hold all of it; undefined when it ends otherwise. */
  readonly stamp: string | undefined;
  /** The snapshot is of the first format: it is written anew. */
  readonly outdated: boolean;
};

export type IndexFiles = {
  /** What the files hold. */
  readonly load: () => Promise<LoadedIndex>;
  /** Appends one line to the journal; resolves once it is written (lines asked together are written together, in order). */
  readonly append: (line: IndexEntry | Removed | Stamp) => Promise<void>;
  /** Lines in the journal now. */
  readonly lines: () => number;
  /** Whether the journal's last line (written, or asked to be) is this stamp. */
  readonly stamped: (stamp: string) => boolean;
  /** Writes `entries()` (as they are when its turn comes, sorted by (createdAt, id)) as the new snapshot and starts an empty journal. */
  readonly compact: (entries: () => readonly IndexEntry[]) => Promise<void>;
};

export function openIndexFiles(serviceDir: string): IndexFiles {
  const snapshotPath = join(serviceDir, "runs-index.json");
  const journalPath = join(serviceDir, "runs-index.jsonl");
  let generation = 0;
  let lines = 0;
  // The journal's last line, when it is a stamp: its mtime.
  let lastStamp: string | undefined;
  let pending: string[] = [];
  let waiting: Array<{ readonly resolve: () => void; readonly reject: (error: unknown) => void }> = [];
  // One write at a time, appends and compactions alike, in the order asked.
  let queue: Promise<void> = Promise.resolve();
  let draining = false;

  const drain = async () => {
    while (pending.length > 0) {
      const text = pending.join("");
      const told = waiting;
      const count = pending.length;
      pending = [];
      waiting = [];
      try {
        await appendFile(journalPath, text, { mode: 0o600 });
        lines += count;
        for (const one of told) one.resolve();
      } catch (error) {
        for (const one of told) one.reject(error);
      }
    }
    draining = false;
  };

  const replace = async (path: string, text: string) => {
    const temporary = `${path}.tmp-${process.pid}`;
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, path);
  };

  return {
    load: async () => {
      // Read at once: nothing else runs while a store opens, and a read in chunks takes longer.
      const text = readSnapshotText(snapshotPath);
      const snapshot = text === undefined ? undefined : readSnapshot(text);
      generation = snapshot?.generation ?? 0;
      const sorted = snapshot?.entries ?? [];
      // What the journal changed since, by id (null: removed).
      const changed = new Map<string, IndexEntry | null>();
      const journal = await readFile(journalPath, "utf8").catch(() => "");
      let journalGeneration = 0;
      lines = 0;
      lastStamp = undefined;
      for (const line of journal.split("\n")) {
        if (line === "") continue;
        lines += 1;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          lastStamp = undefined;
          continue;
        }
        if (lines === 1 && typeof (parsed as Header).generation === "number") {
          journalGeneration = (parsed as Header).generation;
          continue;
        }
        // Folded into the snapshot already (a crash between the two renames of a compaction).
        if (journalGeneration < generation) break;
        lastStamp = typeof (parsed as Stamp).stamp === "string" ? (parsed as Stamp).stamp : undefined;
        if ((parsed as Removed).removed === true && typeof (parsed as Removed).id === "string") changed.set((parsed as Removed).id, null);
        else if (isEntry(parsed)) changed.set(parsed.id, parsed);
      }
      if (journalGeneration < generation) {
        lines = 0;
        lastStamp = undefined;
      }
      // The snapshot's entries the journal left as they were, and the journal's, merged in order.
      const later = [...changed.values()].filter((entry): entry is IndexEntry => entry !== null).sort(byTime);
      const entries: IndexEntry[] = [];
      let at = 0;
      for (const entry of sorted) {
        if (changed.has(entry.id)) continue;
        while (at < later.length && byTime(later[at] as IndexEntry, entry) < 0) entries.push(later[at++] as IndexEntry);
        entries.push(entry);
      }
      while (at < later.length) entries.push(later[at++] as IndexEntry);
      return { entries, stamp: lastStamp, outdated: snapshot?.outdated ?? false };
    },
    append: (line) =>
      new Promise<void>((resolve, reject) => {
        pending.push(`${JSON.stringify(line)}\n`);
        lastStamp = "stamp" in line ? line.stamp : undefined;
        waiting.push({ resolve, reject });
        if (draining) return;
        draining = true;
        queue = queue.then(drain);
      }),
    lines: () => lines,
    stamped: (stamp) => lastStamp === stamp,
    compact: (entries) => {
      const done = queue.then(async () => {
        const next = generation + 1;
        await replace(snapshotPath, writeSnapshot(next, entries()));
        // Until this rename the old journal (its generation older) is skipped at a load: the snapshot holds it.
        await replace(journalPath, `${JSON.stringify({ generation: next })}\n`);
        generation = next;
        lines = 1;
        if (pending.length === 0) lastStamp = undefined;
      });
      queue = done.catch(() => undefined);
      return done;
    },
  };
}

function readSnapshotText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const byTime = (a: IndexEntry, b: IndexEntry): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * A row of the snapshot: id, createdAt, tenant, state, cli, labels (the rest a number into the
 * table of strings or of label sets), endedAt, reason, inputTokens, outputTokens, costUsd, session,
 * idempotencyKey, owes; null where the entry has none.
 */
type Row = [
  string,
  string,
  number,
  number,
  number | null,
  number,
  string | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string | null,
  string | null,
  readonly string[] | null,
];

/** The snapshot's text: a header with the tables, then one row a line, in the order given. */
function writeSnapshot(generation: number, entries: readonly IndexEntry[]): string {
  const strings: string[] = [];
  const stringAt = new Map<string, number>();
  const string = (text: string): number => {
    let at = stringAt.get(text);
    if (at === undefined) stringAt.set(text, (at = strings.push(text) - 1));
    return at;
  };
  const labelSets: Readonly<Record<string, string>>[] = [];
  const labelsAt = new Map<Readonly<Record<string, string>>, number>();
  const labelsByText = new Map<string, number>();
  const labels = (set: Readonly<Record<string, string>>): number => {
    let at = labelsAt.get(set);
    if (at !== undefined) return at;
    const text = JSON.stringify(set);
    at = labelsByText.get(text);
    if (at === undefined) labelsByText.set(text, (at = labelSets.push(set) - 1));
    labelsAt.set(set, at);
    return at;
  };
  const rows = entries.map((entry) => {
    const row: Row = [
      entry.id,
      entry.createdAt,
      string(entry.tenant),
      string(entry.state),
      entry.cli === undefined ? null : string(entry.cli),
      labels(entry.labels),
      entry.endedAt ?? null,
      entry.reason === undefined ? null : string(entry.reason),
      entry.inputTokens ?? null,
      entry.outputTokens ?? null,
      entry.costUsd ?? null,
      entry.session ?? null,
      entry.idempotencyKey ?? null,
      entry.owes === undefined || entry.owes.length === 0 ? null : entry.owes,
    ];
    return JSON.stringify(row);
  });
  const header = JSON.stringify({ format: SNAPSHOT_FORMAT, generation, strings, labels: labelSets });
  return `${header.slice(0, -1)},"entries":[\n${rows.join(",\n")}\n]}\n`;
}

/** A snapshot's generation and entries (sorted by (createdAt, id)), of either format; undefined when it is not one. Rows and entries that are not whole are skipped. */
function readSnapshot(text: string): { readonly generation: number; readonly entries: IndexEntry[]; readonly outdated: boolean } | undefined {
  let parsed: { format?: unknown; generation?: unknown; strings?: unknown; labels?: unknown; entries?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return undefined;
  }
  if (typeof parsed.generation !== "number" || !Array.isArray(parsed.entries)) return undefined;
  if (parsed.format === undefined) {
    const entries = dedupe((parsed.entries as unknown[]).filter(isEntry).sort(byTime));
    return { generation: parsed.generation, entries, outdated: true };
  }
  if (parsed.format !== SNAPSHOT_FORMAT || !Array.isArray(parsed.strings) || !Array.isArray(parsed.labels)) return undefined;
  const strings = parsed.strings as unknown[];
  const labelSets = parsed.labels as unknown[];
  const fromTable = (at: unknown): string | undefined => (typeof at === "number" && typeof strings[at] === "string" ? (strings[at] as string) : undefined);
  const entries: IndexEntry[] = [];
  for (const row of parsed.entries as unknown[]) {
    if (!Array.isArray(row)) continue;
    const [id, createdAt, tenantAt, stateAt, cliAt, labelsAt, endedAt, reasonAt, inputTokens, outputTokens, costUsd, session, idempotencyKey, owes] =
      row as unknown[];
    const tenant = fromTable(tenantAt);
    const state = fromTable(stateAt);
    const labels = typeof labelsAt === "number" ? labelSets[labelsAt] : undefined;
    if (typeof id !== "string" || typeof createdAt !== "string" || tenant === undefined || state === undefined || typeof labels !== "object" || labels === null)
      continue;
    const cli = fromTable(cliAt);
    const reason = fromTable(reasonAt);
    entries.push({
      id,
      createdAt,
      tenant,
      state: state as IndexEntry["state"],
      ...(cli === undefined ? {} : { cli }),
      labels: labels as Readonly<Record<string, string>>,
      ...(typeof idempotencyKey === "string" ? { idempotencyKey } : {}),
      ...(typeof endedAt === "string" ? { endedAt } : {}),
      ...(reason === undefined ? {} : { reason }),
      ...(typeof inputTokens === "number" ? { inputTokens } : {}),
      ...(typeof outputTokens === "number" ? { outputTokens } : {}),
      ...(typeof costUsd === "number" ? { costUsd } : {}),
      ...(typeof session === "string" ? { session } : {}),
      ...(Array.isArray(owes) && owes.length > 0 ? { owes: owes as string[] } : {}),
    });
  }
  // Written sorted; a snapshot edited by hand is sorted here.
  for (let at = 1; at < entries.length; at += 1)
    if (byTime(entries[at - 1] as IndexEntry, entries[at] as IndexEntry) >= 0)
      return { generation: parsed.generation, entries: dedupe(entries.sort(byTime)), outdated: false };
  return { generation: parsed.generation, entries, outdated: false };
}

/** Sorted entries with each id once (the last of it kept). */
function dedupe(entries: IndexEntry[]): IndexEntry[] {
  const last = new Map(entries.map((entry) => [entry.id, entry]));
  return entries.filter((entry) => last.get(entry.id) === entry);
}

function isEntry(value: unknown): value is IndexEntry {
  const entry = value as Partial<IndexEntry> | null;
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.id === "string" &&
    typeof entry.createdAt === "string" &&
    typeof entry.tenant === "string" &&
    typeof entry.state === "string" &&
    typeof entry.labels === "object" &&
    entry.labels !== null
  );
}
