// What store-history.ts and its probe (store-probe.ts) agree on: how a history's marker reads, and
// the shape of the histories the figures are taken on.

/** What a history's marker says; a marker of another format (or size) is built again. */
export type History = { readonly format: number; readonly runs: number; readonly middle: string; readonly builtAt: string; readonly buildSeconds: number };

/** Bumped whenever what a history holds, or how, changes. */
export const HISTORY_FORMAT = 1;

/** Written last by a build: a directory with it is a whole history. */
export const HISTORY_MARKER = "history-complete.json";

/** A history's Runs were created one after another over this many days, up to an hour before it was built. */
export const HISTORY_DAYS = 30;

/**
 * The queries the probe times (and the submit): a list page of each kind, and a usage query over the
 * week before the history's end, from a midnight UTC (whole days) and from an hour within a day.
 */
export const QUERY_NAMES = ["first page", "middle page", "state=failed", "label team=t2", "tenant tenant-3", "usage, whole days", "usage, part day"] as const;

/** The figures of one probe; the sample lists are in milliseconds. */
export type ProbeResult = {
  /** From the process's start to the end of recover(): node, the service's modules, the store opened and the Runs recovered. */
  readonly startupMs: number;
  /** createRunService + recover() alone. */
  readonly recoverMs: number;
  /** Loading the service's modules (part of startupMs). */
  readonly importMs: number;
  /** After recover() and two collections (node --expose-gc). */
  readonly heapBytes: number;
  readonly rssBytes: number;
  readonly samples: Readonly<Record<string, readonly number[]>>;
};
