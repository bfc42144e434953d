// The counterpart of the container sweep, for disk: removes this owner's Run directories that
// nothing will finish (the caller decides which, from run.json) and were not kept on purpose
// (keepRuns keeps them for keptRunRetentionMs, a day by default, counted from the Run's start). Never
// touches a directory that is not a Run directory of this owner.

import { opendir, readFile } from "node:fs/promises";
import { DAY_MS, DEFAULT_KEPT_RUN_RETENTION_DAYS } from "../container/index.js";
import { runDirectory, RUN_ID_PATTERN } from "./layout.js";
import { removeTree } from "./remove-tree.js";
import type { RunInfo } from "./prepare.js";
import { unmountUnder } from "./writable.js";

export type DiskSweepOptions = {
  readonly runtimeDir: string;
  readonly owner: string;
  readonly keepRuns: boolean;
  /** With keepRuns: how long a Run directory outlives its Run's start, in milliseconds; default DEFAULT_KEPT_RUN_RETENTION_DAYS. */
  readonly keptRunRetentionMs?: number;
  /** Whether nothing will finish this Run (its process is gone, its deadline passed, ...): only then is it swept. */
  readonly isOrphaned: (info: RunInfo) => boolean;
  readonly now?: number;
  /** Told of a Run directory that could not be removed; default: ignored. */
  readonly onError?: (runId: string, error: unknown) => void;
};

/** Returns the run ids whose directories were removed. */
export async function sweepRunDirectories(options: DiskSweepOptions): Promise<string[]> {
  const removed: string[] = [];
  const now = options.now ?? Date.now();
  let entries;
  try {
    entries = await opendir(options.runtimeDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return removed;
    throw error;
  }
  for await (const entry of entries) {
    if (!entry.isDirectory() || !RUN_ID_PATTERN.test(entry.name)) continue;
    const dir = runDirectory(options.runtimeDir, entry.name);
    const info = await readInfo(dir.info);
    if (info?.owner !== options.owner || info.runId !== entry.name || !options.isOrphaned(info)) continue;
    // A secret file never outlives its Run, whatever else of the Run is kept.
    await removeTree(dir.secrets).catch((error: unknown) => options.onError?.(entry.name, error));
    const old = now - Date.parse(info.createdAt) > (options.keptRunRetentionMs ?? DEFAULT_KEPT_RUN_RETENTION_DAYS * DAY_MS);
    // With keepRuns, a Run that never finished (its orchestrator was killed) is kept too, as long:
    // its stdout.txt and stderr.txt are what is left to say what happened.
    if (options.keepRuns && !old) continue;
    try {
      // A tmpfs its crashed Run left mounted goes first: removeTree never crosses a mount point.
      await unmountUnder(dir.root);
      await removeTree(dir.root);
      removed.push(entry.name);
    } catch (error) {
      // One directory we may not delete (files another uid owns, when we are not root) must not stop the sweep.
      options.onError?.(entry.name, error);
    }
  }
  return removed;
}

async function readInfo(path: string): Promise<RunInfo | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Partial<RunInfo>;
    const ownership = parsed.ownership;
    const validOwnership =
      ownership === undefined || (typeof ownership === "object" && ownership !== null && Object.values(ownership).every((v) => typeof v === "string"));
    return typeof parsed.owner === "string" && typeof parsed.runId === "string" && typeof parsed.createdAt === "string" && validOwnership
      ? (parsed as RunInfo)
      : undefined;
  } catch {
    return undefined;
  }
}
