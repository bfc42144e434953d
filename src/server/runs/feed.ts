// The events feed: every Run's lifecycle (queued, started, finished, deleted) in one append-only log,
// each entry numbered by one id that only grows, across restarts too, so a client that missed webhooks
// reads on from the last id it saw. Bounded by rotation: past entriesPerFile the current part becomes
// the older one (the one before it is dropped), so the newest entriesPerFile to twice that are kept,
// and a cursor older than the oldest kept is told so. The file store keeps the parts in
// service/feed.jsonl and feed.jsonl.1; the in-memory store in memory only. An entry holds a Run's
// state, labels, end and usage: never its prompt or a secret. An entry is read, or heard, only once
// it is stored. Reads are async, as a feed shared by replicas answers them.

import { appendFile, mkdir, readFile, rename, truncate } from "node:fs/promises";
import { join } from "node:path";
import type { EndReason } from "../../plan/index.js";
import { FEED_ENTRIES_PER_FILE } from "../limits.js";
import type { Lifecycle, LifecycleType } from "./run-service-options.js";
import type { RunState } from "./store.js";

export type FeedEntry = {
  readonly id: number;
  readonly type: LifecycleType;
  readonly runId: string;
  readonly tenant: string;
  readonly time: string;
  readonly data: {
    readonly state: RunState;
    readonly labels: Readonly<Record<string, string>>;
    readonly reason?: EndReason;
    readonly durationMs?: number;
    readonly inputTokens?: number;
    readonly outputTokens?: number;
    readonly costUsd?: number;
  };
};

/** Where a cursor stands against what is kept: entries after it are there, it is older than the oldest kept, or past the newest. */
export type CursorStanding = "kept" | "expired" | "ahead";

export type Feed = {
  /** The file store's feed.jsonl; "" for one that keeps no file. */
  readonly path: string;
  /** Numbers the step and writes it; it is read and heard once written. A failed write is told to onError, never thrown. */
  readonly append: (change: Lifecycle) => void;
  /** The kept entries after `after` that `visible` lets through, oldest first, at most `limit`. */
  readonly after: (after: number, visible: (entry: FeedEntry) => boolean, limit: number) => Promise<FeedEntry[]>;
  readonly standing: (after: number) => Promise<CursorStanding>;
  /** The id of the oldest entry kept (the newest's plus one when none is). */
  readonly oldestId: () => Promise<number>;
  /** The id of the newest entry written (0 before the first): after= it reads only what comes next. */
  readonly newestId: () => Promise<number>;
  /** Hears each entry once it is written; returns how to stop. */
  readonly listen: (listener: (entry: FeedEntry) => void) => () => void;
  /** Waits for every write asked so far. */
  readonly flush: () => Promise<void>;
};

export type FeedOptions = {
  readonly onError?: (error: unknown) => void;
  /** Default FEED_ENTRIES_PER_FILE. */
  readonly entriesPerFile?: number;
};

/** Where the feed's two parts are kept: read once at start, then appended to and rotated in the order asked. */
type FeedParts = {
  readonly path: string;
  /** The older part, then the current one, both in id order. */
  readonly read: () => Promise<{ readonly older: FeedEntry[]; readonly current: FeedEntry[] }>;
  readonly append: (entry: FeedEntry) => Promise<void>;
  /** The current part becomes the older one; the one before it is dropped. */
  readonly rotate: () => Promise<void>;
};

/** The file store's feed, in service/feed.jsonl and feed.jsonl.1. */
export async function openFeed(serviceDir: string, options: FeedOptions = {}): Promise<Feed> {
  const path = join(serviceDir, "feed.jsonl");
  const rotated = `${path}.1`;
  await mkdir(serviceDir, { recursive: true, mode: 0o700 });
  return feedOver(
    {
      path,
      read: async () => ({ older: await readEntries(rotated), current: await readEntries(path, { mend: true }) }),
      append: (entry) => appendFile(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 }),
      rotate: () => rename(path, rotated),
    },
    options,
  );
}

/** The in-memory store's: the feed's own two parts are all there is. */
export function createMemoryFeed(options: FeedOptions = {}): Promise<Feed> {
  return feedOver({ path: "", read: async () => ({ older: [], current: [] }), append: async () => undefined, rotate: async () => undefined }, options);
}

async function feedOver(parts: FeedParts, options: FeedOptions): Promise<Feed> {
  const { path } = parts;
  const entriesPerFile = options.entriesPerFile ?? FEED_ENTRIES_PER_FILE;
  // What the older part holds, then what the current one holds: both in id order.
  let { older, current } = await parts.read();
  let numbered = current.at(-1)?.id ?? older.at(-1)?.id ?? 0;
  let written = numbered;
  const listeners = new Set<(entry: FeedEntry) => void>();
  let chain: Promise<void> = Promise.resolve();
  const oldestId = () => older[0]?.id ?? current[0]?.id ?? written + 1;
  return {
    path,
    append: (change) => {
      numbered += 1;
      const entry = entryOf(numbered, change);
      chain = chain
        .then(async () => {
          if (current.length >= entriesPerFile) {
            await parts.rotate();
            older = current;
            current = [];
          }
          await parts.append(entry);
          current.push(entry);
          written = entry.id;
          for (const listener of listeners) listener(entry);
        })
        .catch((error: unknown) => options.onError?.(error));
    },
    after: async (after, visible, limit) => {
      const found: FeedEntry[] = [];
      for (const entries of [older, current]) {
        for (let at = firstAfter(entries, after); at < entries.length && found.length < limit; at += 1) {
          const entry = entries[at] as FeedEntry;
          if (visible(entry)) found.push(entry);
        }
      }
      return found;
    },
    standing: async (after) => (after > written ? "ahead" : after < oldestId() - 1 ? "expired" : "kept"),
    oldestId: async () => oldestId(),
    newestId: async () => written,
    listen: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    flush: () => chain,
  };
}

/** What the feed says of one step: the Run's state and labels, and once it ended, how and what it used. */
function entryOf(id: number, { type, record, at }: Lifecycle): FeedEntry {
  const { reason, durationMs, usage } = record;
  return {
    id,
    type,
    runId: record.id,
    tenant: record.tenant,
    time: at,
    data: {
      state: record.state,
      labels: record.labels,
      ...(reason === undefined ? {} : { reason }),
      ...(durationMs === undefined ? {} : { durationMs }),
      ...(usage ?? {}),
    },
  };
}

/** The index of the first entry with an id past `after` (entries are in id order). */
function firstAfter(entries: readonly FeedEntry[], after: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((entries[middle] as FeedEntry).id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A file's entries; a line that is not one (cut short by a crash) is skipped. `mend`: the file that
 * is appended to loses a last line cut short, or the next entry would be written onto its end.
 */
async function readEntries(path: string, { mend = false } = {}): Promise<FeedEntry[]> {
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  if (mend && text !== "" && !text.endsWith("\n")) await truncate(path, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
  const entries: FeedEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry = JSON.parse(line) as FeedEntry;
      // In id order only: a line out of order could only be damage.
      if (Number.isSafeInteger(entry.id) && entry.id > (entries.at(-1)?.id ?? 0)) entries.push(entry);
    } catch {
      // A line cut short by a crash: the ones around it stand.
    }
  }
  return entries;
}
