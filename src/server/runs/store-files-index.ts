// The file store's index on disk, under `<runtimeDir>/service/`: runs-index.json, a snapshot of every
// entry (written whole to a temporary file, then renamed over it), and runs-index.jsonl, the journal
// of what changed since, one JSON line each (an entry, or `{"id":…,"removed":true}`), appended in the
// order the entries changed in memory. Both name a generation: a journal older than the snapshot is
// already in it. A line cut short by a crash is skipped. The index is derived, never the record: the
// Run directories are, and a start mends the index from them (store-files.ts).

import { appendFile, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { IndexEntry } from "./run-index.js";

/** The journal is folded into a new snapshot once it holds more lines than this and than the entries kept. */
export const INDEX_COMPACT_MIN_LINES = 10_000;

type Removed = { readonly id: string; readonly removed: true };
type Header = { readonly generation: number };

export type IndexFiles = {
  /** Every entry the files hold, the journal replayed over the snapshot; and how many lines the journal holds. */
  readonly load: () => Promise<{ readonly entries: Map<string, IndexEntry>; readonly lines: number }>;
  /** Appends one line to the journal; resolves once it is written (lines asked together are written together, in order). */
  readonly append: (line: IndexEntry | Removed) => Promise<void>;
  /** Lines in the journal now. */
  readonly lines: () => number;
  /** Writes `entries()` (as they are when its turn comes) as the new snapshot and starts an empty journal. */
  readonly compact: (entries: () => Iterable<IndexEntry>) => Promise<void>;
};

export function openIndexFiles(serviceDir: string): IndexFiles {
  const snapshotPath = join(serviceDir, "runs-index.json");
  const journalPath = join(serviceDir, "runs-index.jsonl");
  let generation = 0;
  let lines = 0;
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
      const entries = new Map<string, IndexEntry>();
      const snapshot = await readFile(snapshotPath, "utf8").then(
        (text) => JSON.parse(text) as { generation?: unknown; entries?: unknown },
        () => undefined,
      );
      if (typeof snapshot?.generation === "number" && Array.isArray(snapshot.entries)) {
        generation = snapshot.generation;
        for (const entry of snapshot.entries as IndexEntry[]) if (isEntry(entry)) entries.set(entry.id, entry);
      }
      const text = await readFile(journalPath, "utf8").catch(() => "");
      let journalGeneration = 0;
      lines = 0;
      for (const line of text.split("\n")) {
        if (line === "") continue;
        lines += 1;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        if (lines === 1 && typeof (parsed as Header).generation === "number") {
          journalGeneration = (parsed as Header).generation;
          continue;
        }
        // Folded into the snapshot already (a crash between the two renames of a compaction).
        if (journalGeneration < generation) break;
        if ((parsed as Removed).removed === true && typeof (parsed as Removed).id === "string") entries.delete((parsed as Removed).id);
        else if (isEntry(parsed)) entries.set(parsed.id, parsed);
      }
      if (journalGeneration < generation) lines = 0;
      return { entries, lines };
    },
    append: (line) =>
      new Promise<void>((resolve, reject) => {
        pending.push(`${JSON.stringify(line)}\n`);
        waiting.push({ resolve, reject });
        if (draining) return;
        draining = true;
        queue = queue.then(drain);
      }),
    lines: () => lines,
    compact: (entries) => {
      const done = queue.then(async () => {
        const next = generation + 1;
        const all = [...entries()].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
        await replace(snapshotPath, `{"generation":${next},"entries":[\n${all.map((entry) => JSON.stringify(entry)).join(",\n")}\n]}\n`);
        // Until this rename the old journal (its generation older) is skipped at a load: the snapshot holds it.
        await replace(journalPath, `${JSON.stringify({ generation: next })}\n`);
        generation = next;
        lines = 1;
      });
      queue = done.catch(() => undefined);
      return done;
    },
  };
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
