// The audit log: one JSON line per thing a caller did (made, cancelled, deleted a Run; read its
// artifacts; made or revoked a key; changed a tenant; was refused at the door), appended in order:
// the file store's to service/audit.jsonl, rotated by size (audit.jsonl.1 … .N, the oldest dropped),
// the in-memory store's to a list of its newest AUDIT_MEMORY_ENTRIES. An entry
// names the actor by tenant and key prefix, never a prompt, a key or a secret. Refusals at the door
// are folded: one entry per remote address per AUDIT_REFUSALS_WINDOW_MS, with how many it stands for.

import { appendFile, mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AUDIT_FILES_KEPT, AUDIT_MEMORY_ENTRIES, AUDIT_MAX_FILE_BYTES, AUDIT_REFUSALS_WINDOW_MS } from "../limits.js";

export const AUDIT_ACTIONS = ["run.create", "run.cancel", "run.delete", "run.artifacts", "key.create", "key.revoke", "tenant.change", "auth.refused"] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = {
  readonly time: string;
  readonly action: AuditAction;
  /** The caller's tenant; absent for a refusal at the door (no tenant was proven). */
  readonly tenant?: string;
  /** The prefix of the key used (or operator-token); for a refusal, the prefix the bearer showed, if it had one. */
  readonly key?: string;
  readonly runId?: string;
  /** What it was done to besides a Run: a key's prefix, a tenant's name. */
  readonly target?: string;
  /** The HTTP status answered, or the refusal's reason. */
  readonly result: number | string;
  readonly remote: string;
  /** For folded refusals: how many this entry stands for. */
  readonly count?: number;
};

export type AuditLog = {
  /** The file store's audit.jsonl; "" for one that keeps no file. */
  readonly path: string;
  /** Appends an entry (its time is now); writes are in order, and a failed write is told to onError, never thrown. */
  readonly record: (entry: Omit<AuditEntry, "time">) => void;
  /** A refusal at the door, folded per remote address. */
  readonly refused: (remote: string, reason: string, key: string | undefined) => void;
  /** The entries at or after `since` (epoch ms), oldest first, from the rotated files too; at most `limit`, the newest. */
  readonly read: (since: number, limit: number) => Promise<AuditEntry[]>;
  /** Waits for every write asked so far, and writes the refusals still folded. */
  readonly flush: () => Promise<void>;
};

/** Where the entries are kept: appended one at a time, in the order asked; read back oldest first. */
type AuditEntries = {
  readonly path: string;
  readonly ready: Promise<void>;
  readonly append: (entry: AuditEntry) => Promise<void>;
  readonly all: () => Promise<AuditEntry[]>;
};

/** The file store's audit log, in service/audit.jsonl and its rotated files. */
export function openAuditLog(serviceDir: string, onError: (error: unknown) => void = () => undefined): AuditLog {
  return auditLogOver(auditFiles(join(serviceDir, "audit.jsonl")), onError);
}

/** The in-memory store's. */
export function createMemoryAuditLog(onError: (error: unknown) => void = () => undefined): AuditLog {
  const entries: AuditEntry[] = [];
  return auditLogOver(
    {
      path: "",
      ready: Promise.resolve(),
      append: async (entry) => void (entries.push(entry) > AUDIT_MEMORY_ENTRIES && entries.shift()),
      all: async () => [...entries],
    },
    onError,
  );
}

function auditFiles(path: string): AuditEntries {
  return {
    path,
    ready: mkdir(dirname(path), { recursive: true, mode: 0o700 }).then(() => undefined),
    append: async (entry) => {
      const line = `${JSON.stringify(entry)}\n`;
      const size = await stat(path).then(
        (s) => s.size,
        () => 0,
      );
      if (size > 0 && size + line.length > AUDIT_MAX_FILE_BYTES) await rotate(path);
      await appendFile(path, line, { mode: 0o600 });
    },
    all: async () => {
      const entries: AuditEntry[] = [];
      for (let n = AUDIT_FILES_KEPT; n >= 0; n -= 1) {
        const text = await readFile(n === 0 ? path : `${path}.${n}`, "utf8").catch(() => "");
        for (const line of text.split("\n")) {
          if (line === "") continue;
          try {
            const entry = JSON.parse(line) as AuditEntry | null;
            if (typeof entry?.time === "string") entries.push(entry);
          } catch {
            // A line cut short by a crash: the ones around it stand.
          }
        }
      }
      return entries;
    },
  };
}

function auditLogOver(kept: AuditEntries, onError: (error: unknown) => void): AuditLog {
  const { path } = kept;
  let chain: Promise<void> = kept.ready;
  const folded = new Map<string, { count: number; reason: string; key: string | undefined; since: number; timer: NodeJS.Timeout }>();
  const append = (entry: AuditEntry) => {
    chain = chain.then(() => kept.append(entry)).catch(onError);
  };
  const writeFolded = (remote: string) => {
    const fold = folded.get(remote);
    if (fold === undefined) return;
    folded.delete(remote);
    clearTimeout(fold.timer);
    if (fold.count > 0)
      append({
        time: new Date().toISOString(),
        action: "auth.refused",
        result: fold.reason,
        remote,
        count: fold.count,
        ...(fold.key === undefined ? {} : { key: fold.key }),
      });
  };
  return {
    path,
    record: (entry) => append({ time: new Date().toISOString(), ...entry }),
    refused: (remote, reason, key) => {
      const fold = folded.get(remote);
      if (fold !== undefined) {
        fold.count += 1;
        fold.reason = reason;
        fold.key = key;
        return;
      }
      // The first refusal from an address is written at once; the ones after it within the window, as one entry with their count.
      append({ time: new Date().toISOString(), action: "auth.refused", result: reason, remote, ...(key === undefined ? {} : { key }) });
      folded.set(remote, { count: 0, reason, key, since: Date.now(), timer: setTimeout(() => writeFolded(remote), AUDIT_REFUSALS_WINDOW_MS).unref() });
    },
    read: async (since, limit) => {
      await chain;
      return (await kept.all()).filter((entry) => Date.parse(entry.time) >= since).slice(-limit);
    },
    flush: async () => {
      for (const remote of [...folded.keys()]) writeFolded(remote);
      await chain;
    },
  };
}

/** audit.jsonl becomes .1, .1 becomes .2, …; the oldest past AUDIT_FILES_KEPT goes. */
async function rotate(path: string): Promise<void> {
  await rm(`${path}.${AUDIT_FILES_KEPT}`, { force: true });
  for (let n = AUDIT_FILES_KEPT - 1; n >= 1; n -= 1) await rename(`${path}.${n}`, `${path}.${n + 1}`).catch(() => undefined);
  await rename(path, `${path}.1`);
}
