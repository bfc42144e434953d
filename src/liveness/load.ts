// How much slower than idle this machine is right now, as one number: the bound every wait that is
// not a user's deadline is stretched by (slow is not dead: docs/operations.md).
// Invariant: never below 1, so a scaled bound is never shorter than the one written beside it.

import { availableParallelism, loadavg } from "node:os";
import { readFileSync } from "node:fs";
import { MAX_LOAD_FACTOR } from "./limits.js";

/** Reads the machine's load: runnable tasks this instant and the 1-minute average, and its cores. */
export type LoadReading = { readonly runnable: number; readonly average: number; readonly cores: number };

/** /proc/loadavg's fourth field ("5/300": runnable now / all tasks) reacts at once to a burst; the average lags a minute behind it. */
function readLoad(): LoadReading {
  const cores = Math.max(1, availableParallelism());
  const average = loadavg()[0] ?? 0;
  let runnable = 0;
  try {
    // One of them is this reader: it does not count as load.
    runnable = Math.max(0, Number(readFileSync("/proc/loadavg", "utf8").split(" ")[3]?.split("/")[0] ?? 0) - 1);
  } catch {
    // Not Linux: the average alone.
  }
  return { runnable: Number.isFinite(runnable) ? runnable : 0, average, cores };
}

let reader: () => LoadReading = readLoad;

/** Load per core, from 1 to MAX_LOAD_FACTOR: the larger of the tasks runnable now and the 1-minute average, over the cores. */
export function loadFactor(): number {
  const { runnable, average, cores } = reader();
  return Math.min(MAX_LOAD_FACTOR, Math.max(1, runnable / cores, average / cores));
}

/** `idleMs`, what a wait takes on an idle machine, stretched by the load now. */
export function scaledMs(idleMs: number): number {
  return Math.round(idleMs * loadFactor());
}

/** For tests of what the load changes: the reading `loadFactor` uses, until the returned function puts the real one back. */
export function readLoadWith(read: () => LoadReading): () => void {
  reader = read;
  return () => {
    reader = readLoad;
  };
}
