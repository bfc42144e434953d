// How `agentcage runs` prints, whether it read the service's records from disk or through its API:
// the flags checked before anything is read, the list's columns and an event's line. Invariant: the
// two ways print the same row for the same Run.

import type { RunState } from "../client/index.js";
import { RUN_ID_PATTERN } from "../staging/index.js";
import { UsageError } from "./options.js";
import { formatSeconds, oneLine, shorten } from "./progress.js";

/** Every state of the service's API, and no other (a Record of them all): what --state takes, read without loading the service. */
const STATES: Readonly<Record<RunState, true>> = { queued: true, starting: true, running: true, completed: true, failed: true, cancelled: true };
const RUN_STATES = Object.keys(STATES);

export function checkedId(id: string): string {
  if (!RUN_ID_PATTERN.test(id)) throw new UsageError(`the Run id ${JSON.stringify(id)} is not one; a Run id is 16 hex digits, as agentcage runs ls lists them`);
  return id;
}

export function checkedState(state: string | undefined): RunState | undefined {
  if (state !== undefined && !(RUN_STATES as readonly string[]).includes(state)) {
    throw new UsageError(`--state ${JSON.stringify(state)} is not a Run state; write one of ${RUN_STATES.join(", ")}`);
  }
  return state as RunState | undefined;
}

/** Each --label key=value as its key and value. */
export function checkedLabels(given: readonly string[] | undefined): Array<readonly [string, string]> {
  return (given ?? []).map((pair) => {
    const at = pair.indexOf("=");
    if (at < 1) throw new UsageError(`--label ${JSON.stringify(pair)} is not key=value; write e.g. --label team=review`);
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
}

export type RunRow = {
  readonly id: string;
  readonly state: string;
  readonly cli: string;
  readonly createdAt: string;
  readonly durationMs: number | undefined;
  readonly prompt: string;
};

/** The list's table, newest first as given. */
export function runTable(rows: readonly RunRow[]): string {
  const header = `${["ID".padEnd(16), "STATE".padEnd(9), "CLI".padEnd(6), "CREATED".padEnd(20), "TOOK".padEnd(8), "PROMPT"].join("  ")}\n`;
  return (
    header +
    rows
      .map((row) => {
        const took = row.durationMs === undefined ? "" : formatSeconds(row.durationMs);
        const created = row.createdAt.slice(0, 19).replace("T", " ");
        return `${[row.id, row.state.padEnd(9), row.cli.padEnd(6), created.padEnd(20), took.padEnd(8), shorten(oneLine(row.prompt), 60)].join("  ")}\n`;
      })
      .join("")
  );
}

/** One event as `runs logs` prints it: its id, type and data on one line, or the event as JSON. */
export function eventLine(event: { readonly id: number; readonly type: string; readonly data: unknown }, json: boolean): string {
  if (json) return `${JSON.stringify(event)}\n`;
  return `${String(event.id).padStart(4)} ${event.type.padEnd(6)} ${shorten(oneLine(JSON.stringify(event.data)), 200)}\n`;
}
