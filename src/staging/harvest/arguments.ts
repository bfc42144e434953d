// What a harvest() call may pass, and the checks that throw HarvestArgumentError for a call that
// cannot mean anything: extra arguments, unknown or mistyped options, relative paths, a destination
// that is the root, paths that overlap, limits that are not whole numbers. Invariant: only these
// throw; anything found on disk is a refusal, resolved, never thrown.

import path from "node:path";
import { AgentcageError } from "../../errors/index.js";
import type { HarvestRefusal } from "../../plan/index.js";
import { MAX_HARVEST_DEPTH, MAX_HARVEST_ENTRIES, MAX_HARVEST_FILE_BYTES, MAX_HARVEST_TOTAL_BYTES } from "./limits.js";
import { overlapsAsWritten, pathsOverlap } from "./overlap.js";
import { EMPTY, failureText, refusal } from "./refusals.js";

/** The bounds a Harvest holds what the agent left to; an entry past one refuses the whole Harvest. */
export type HarvestLimits = {
  /** Directory levels below the source (its direct children are level 1). Default MAX_HARVEST_DEPTH (8). */
  readonly maxDepth: number;
  /** Bytes in one file. Default MAX_HARVEST_FILE_BYTES (8 MiB). */
  readonly maxFileBytes: number;
  /** Bytes in all files together. Default MAX_HARVEST_TOTAL_BYTES (64 MiB). */
  readonly maxTotalBytes: number;
  /** Files plus directories, the source itself not counted. Default MAX_HARVEST_ENTRIES (2000). */
  readonly maxEntries: number;
};

/** The limits, each defaulting as HarvestLimits says, and a signal that stops the copy at its next entry (a listing under way, bounded by maxEntries, is finished first). */
export type HarvestOptions = Partial<HarvestLimits> & {
  readonly signal?: AbortSignal;
  /** Replace a destination that already holds something; default false: such a destination is refused, nothing is deleted. */
  readonly replace?: boolean;
};

/** A harvest() call that cannot mean anything: the parameter, the value, and what to pass instead. */
export class HarvestArgumentError extends AgentcageError {
  override readonly name = "HarvestArgumentError";
  readonly code = "invalid_harvest_arguments";
}

/** Both paths resolved, and the destination's parent directory and name. */
export type CheckedPaths = { readonly source: string; readonly destination: string; readonly parent: string; readonly base: string };

/** A harvest() call once checked: its paths, its effective limits, its signal, and whether replacing was asked for. */
export type CheckedArguments = {
  readonly paths: CheckedPaths;
  readonly limits: HarvestLimits;
  readonly signal: AbortSignal | undefined;
  readonly replace: boolean;
};

const HARVEST_OPTION_NAMES = new Set(["maxDepth", "maxFileBytes", "maxTotalBytes", "maxEntries", "signal", "replace"]);

/** Checks harvest()'s arguments as written, in the order a caller reads them; throws HarvestArgumentError at the first that cannot mean anything. */
export function checkArguments(source: string, destination: string, options: HarvestOptions, extra: readonly never[]): CheckedArguments {
  if (extra.length > 0)
    throw new HarvestArgumentError(
      `harvest takes (source, destination, options); ${extra.length} more argument(s) were given; pass the limits, signal and replace inside options`,
    );
  checkOptions(options);
  const paths = checkPaths(source, destination);
  const { signal, replace, ...limits } = options;
  return { paths, limits: checkLimits(limits), signal, replace: replace === true };
}

/**
 * Throws HarvestArgumentError when the paths overlap once links are resolved. A path whose links
 * cannot be resolved is refused here, not let through: the overlap check would otherwise pass it unchecked.
 */
export async function checkResolvedOverlap(paths: CheckedPaths, source: string, destination: string): Promise<HarvestRefusal | undefined> {
  let overlap: boolean;
  try {
    overlap = await pathsOverlap(paths.source, paths.destination);
  } catch (error) {
    return refusal(
      "io_error",
      EMPTY,
      `harvest could not resolve the links of its source and destination to check that neither lies inside the other ${failureText(error)}; pass paths with no link loop, whose directories this process can search`,
    );
  }
  if (overlap) {
    throw new HarvestArgumentError(
      `harvest source ${JSON.stringify(source)} and destination ${JSON.stringify(destination)} overlap once links are resolved; pass a destination outside the source and not containing it`,
    );
  }
  return undefined;
}

function checkPaths(source: string, destination: string): CheckedPaths {
  checkAbsolute("harvest source", source);
  const checked = checkDestinationPath(destination);
  const resolvedSource = path.resolve(source);
  if (overlapsAsWritten(resolvedSource, checked.destination)) {
    throw new HarvestArgumentError(
      `harvest source ${JSON.stringify(source)} and destination ${JSON.stringify(destination)} overlap; pass a destination outside the source and not containing it`,
    );
  }
  return { source: resolvedSource, ...checked };
}

export function checkDestinationPath(destination: string): Omit<CheckedPaths, "source"> {
  checkAbsolute("harvest destination", destination);
  const resolved = path.resolve(destination);
  const base = path.basename(resolved);
  if (base === "") throw new HarvestArgumentError(`harvest destination ${JSON.stringify(destination)} is the file-system root; pass a directory below it`);
  return { destination: resolved, parent: path.dirname(resolved), base };
}

function checkAbsolute(role: string, value: unknown): void {
  if (typeof value !== "string" || !path.isAbsolute(value) || value.includes("\0")) {
    throw new HarvestArgumentError(`${role} ${JSON.stringify(value)} is not an absolute path; pass an absolute path without NUL characters`);
  }
}

function checkOptions(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new HarvestArgumentError(
      `harvest options ${describe(options)} is not an object; pass { maxEntries?, maxTotalBytes?, signal?, replace? } or leave it out`,
    );
  }
  const unknown = Object.keys(options).filter((key) => !HARVEST_OPTION_NAMES.has(key));
  if (unknown.length > 0)
    throw new HarvestArgumentError(`harvest option ${JSON.stringify(unknown[0])} is not one harvest knows; use ${[...HARVEST_OPTION_NAMES].join(", ")}`);
  const { signal, replace } = options as HarvestOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new HarvestArgumentError(`harvest option signal ${describe(signal)} is not an AbortSignal; pass controller.signal or leave it out`);
  if (replace !== undefined && typeof replace !== "boolean")
    throw new HarvestArgumentError(`harvest option replace ${describe(replace)} is not a boolean; pass true to replace a destination that holds files`);
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function checkLimits(limits: Partial<HarvestLimits>): HarvestLimits {
  const effective: HarvestLimits = {
    maxDepth: limits.maxDepth ?? MAX_HARVEST_DEPTH,
    maxFileBytes: limits.maxFileBytes ?? MAX_HARVEST_FILE_BYTES,
    maxTotalBytes: limits.maxTotalBytes ?? MAX_HARVEST_TOTAL_BYTES,
    maxEntries: limits.maxEntries ?? MAX_HARVEST_ENTRIES,
  };
  for (const [key, value] of Object.entries(effective)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new HarvestArgumentError(
        `harvest limit ${key} ${JSON.stringify(value)} is not a non-negative integer; pass a whole number or leave it out for the default`,
      );
    }
  }
  return effective;
}
