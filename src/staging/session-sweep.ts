// The retention of kept session stores: a store whose last use (its directory's mtime, set when a
// Run keeps it and refreshed when a Run resumes it) is older than the retention is removed, unless a
// Run of this process is using it. A store is first renamed aside and looked at again, so a Run that
// touched it in between gets it back whole; never a half-removed store, never anything but a store.

import { randomBytes } from "node:crypto";
import { lstat, opendir, rename } from "node:fs/promises";
import { join } from "node:path";
import { SESSIONS_DIRECTORY } from "./layout.js";
import { removeTree } from "./remove-tree.js";
import { SESSION_NAME } from "./sessions.js";

export type SessionSweepOptions = {
  readonly runtimeDir: string;
  /** How long a store outlives its last use, in milliseconds. */
  readonly retentionMs: number;
  /** Whether a Run of this process is resuming or keeping this store now: such a store is never removed. */
  readonly isInUse: (namespace: string, id: string) => boolean;
  readonly now?: number;
  /** Told of a store that could not be removed; default: ignored (the next sweep tries again). */
  readonly onError?: (store: { readonly namespace: string; readonly id: string }, error: unknown) => void;
};

/** A store the sweep removed, and when it was last used. */
export type SweptSessionStore = { readonly namespace: string; readonly id: string; readonly lastUsedAt: string };

/** A store set aside by a sweep that was interrupted before it removed it: `.<id>.swept-<16 hex>`. */
const SET_ASIDE = /^\.(.+)\.swept-[0-9a-f]{16}$/;

export async function sweepSessionStores(options: SessionSweepOptions): Promise<SweptSessionStore[]> {
  const now = options.now ?? Date.now();
  const oldest = now - options.retentionMs;
  const removed: SweptSessionStore[] = [];
  const root = join(options.runtimeDir, SESSIONS_DIRECTORY);
  for (const namespace of await directoriesIn(root)) {
    if (!SESSION_NAME.test(namespace)) continue;
    const parent = join(root, namespace);
    for (const name of await directoriesIn(parent)) {
      const leftover = SET_ASIDE.exec(name);
      if (leftover !== null) {
        await removeTree(join(parent, name)).catch((error: unknown) => options.onError?.({ namespace, id: leftover[1] ?? name }, error));
        continue;
      }
      if (!SESSION_NAME.test(name) || options.isInUse(namespace, name)) continue;
      const store = join(parent, name);
      try {
        const lastUsed = await lastUse(store);
        if (lastUsed === undefined || lastUsed >= oldest) continue;
        const aside = join(parent, `.${name}.swept-${randomBytes(8).toString("hex")}`);
        await rename(store, aside);
        // A Run that resumed it between the look and the rename refreshed its mtime: it stays.
        const asideUsed = await lastUse(aside);
        const usedMeanwhile = options.isInUse(namespace, name) || (asideUsed !== undefined && asideUsed >= oldest);
        // Renamed back; when a Run kept a new store under its name meanwhile, that one wins and the old one goes.
        if (
          usedMeanwhile &&
          (await rename(aside, store).then(
            () => true,
            () => false,
          ))
        )
          continue;
        await removeTree(aside);
        if (!usedMeanwhile) removed.push({ namespace, id: name, lastUsedAt: new Date(lastUsed).toISOString() });
      } catch (error) {
        options.onError?.({ namespace, id: name }, error);
      }
    }
  }
  return removed;
}

/** The store's last use in epoch ms, or undefined when it is gone or is not a directory (never swept). */
async function lastUse(path: string): Promise<number | undefined> {
  const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  return stats?.isDirectory() === true ? stats.mtimeMs : undefined;
}

/** The names of the directories directly in `path` (not links); none when it does not exist. */
async function directoriesIn(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await opendir(path)) if (entry.isDirectory()) names.push(entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return names;
    throw error;
  }
  return names;
}
