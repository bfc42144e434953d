// How a Harvest says no: the one place a refusal is built and worded. Invariant: no name and no
// path is ever printed raw (every one goes through printableName), and no failure is told by
// Node's own message, which would quote the raw path: only by its code and system call.

import type { HarvestRefusal, HarvestRefusalReason, HarvestResult } from "../../plan/index.js";
import type { CallFailure } from "./listing.js";
import { printableName } from "./printable-name.js";

/** The source itself, as a relative name. */
export const EMPTY = Buffer.alloc(0);
const ROOT_ENTRY = JSON.stringify(".");

export function refusal(reason: HarvestRefusalReason, relative: Buffer, message: string): HarvestRefusal {
  return { reason, entry: entryText(relative), message };
}

export function refused(refusal: HarvestRefusal): HarvestResult {
  return { ok: false, refusal };
}

export function entryText(relative: Buffer): string {
  return relative.length === 0 ? ROOT_ENTRY : printableName(relative);
}

export function printablePath(absolute: string): string {
  return printableName(Buffer.from(absolute));
}

/** An unexpected failure, described by its code and system call only: Node's own message would quote the raw path. */
export function ioError(relative: Buffer, action: string, error: unknown): HarvestRefusal {
  return refusal(
    "io_error",
    relative,
    `harvest could not ${action} ${entryText(relative)} ${failureText(error)}; check the host's disk and permissions, then harvest again`,
  );
}

export function changed(relative: Buffer, what: string): HarvestRefusal {
  return refusal(
    "changed_during_harvest",
    relative,
    `${entryText(relative)} changed while it was harvested (${what}); harvest only a tree nothing writes to any more, after the container is gone`,
  );
}

export function interrupted(relative: Buffer, signal: AbortSignal): HarvestRefusal {
  return refusal(
    "interrupted",
    relative,
    `the Harvest was stopped at ${entryText(relative)}: ${String((signal.reason as Error | undefined)?.message ?? signal.reason)}`,
  );
}

/** "(CODE in syscall)": a failure told without Node's own message, which would quote the raw path. */
export function failureText(error: unknown): string {
  const code = errorCode(error) ?? (error instanceof Error ? error.name : "an unknown error");
  const syscall = error instanceof Error && "syscall" in error && typeof error.syscall === "string" ? ` in ${error.syscall}` : "";
  return `(${code}${syscall})`;
}

export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

/** A failure the listing reported, as the Error ioError reads its code and system call from. */
export function failureError(failure: CallFailure | undefined): Error {
  const error = new Error(failure?.name ?? "the listing gave no reason");
  error.name = failure?.name ?? "Error";
  return Object.assign(error, failure?.code === undefined ? {} : { code: failure.code }, failure?.syscall === undefined ? {} : { syscall: failure.syscall });
}
