// What every subcommand shares: where agentcage keeps its state, how a number on the command line
// is read, and the error a wrong argument gets (naming the option, quoting the value, saying what to write).

import { type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { InvalidArgumentError } from "commander";
import { AgentcageError } from "../errors/index.js";
import { MAX_RETENTION_DAYS } from "../container/index.js";
import { parseEngineSpec } from "../runtime/index.js";

/** A wrong command line, worded for the person who typed it; the command exits 2. */
export class UsageError extends AgentcageError {
  override readonly name = "UsageError";
  readonly code = "invalid_usage";
}

/**
 * Where Run directories, kept sessions and the service's records live: AGENTCAGE_RUNTIME_DIR, else
 * /var/lib/agentcage for root (as the service runs), else ~/.local/state/agentcage.
 */
export function defaultRuntimeDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const given = env["AGENTCAGE_RUNTIME_DIR"];
  if (given !== undefined && given !== "") return resolve(given);
  if (process.getuid?.() === 0) return "/var/lib/agentcage";
  return join(env["XDG_STATE_HOME"] || join(homedir(), ".local", "state"), "agentcage");
}

/** A commander argument parser for a whole number from `min` to `max`, naming its option when it refuses. */
export function wholeNumber(option: string, min: number, max: number): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

/**
 * An option whose parser read an empty variable as "the default": commander stores that as "", so
 * the caller reads it through this, which gives undefined for both.
 */
export function unlessEmpty<T>(value: T | "" | undefined): T | undefined {
  return value === "" ? undefined : value;
}

/**
 * A commander argument parser for a count of bytes (`--writable-bytes`, or its variable): an empty
 * variable is the library's default (read it through unlessEmpty), anything else a whole number from `min` to `max`.
 */
export function byteCount(option: string, min: number, max: number, whatToWrite: string): (raw: string) => number | undefined {
  return (raw) => {
    if (raw === "") return undefined;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not a whole number of bytes from ${min} to ${max}; write ${whatToWrite}`);
    }
    return n;
  };
}

/**
 * A commander argument parser for a whole number from `min` to `max` that may also come from a
 * variable, where empty means the default (undefined; read it through unlessEmpty).
 */
export function optionalWholeNumber(option: string, min: number, max: number, whatToWrite: string): (raw: string) => number | undefined {
  return (raw) => {
    if (raw === "") return undefined;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not a whole number from ${min} to ${max}; write ${whatToWrite}`);
    }
    return n;
  };
}

/** A commander argument parser for an amount of USD from 0, which may come from a variable where empty means the default. */
export function optionalDollars(option: string, whatToWrite: string): (raw: string) => number | undefined {
  return (raw) => {
    if (raw === "") return undefined;
    const n = Number(raw.replace(/^\$/, ""));
    if (raw.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1_000_000)
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not an amount of USD from 0 to 1000000; write ${whatToWrite}`);
    return n;
  };
}

/**
 * A commander argument parser for a retention in whole days (`--session-retention-days`, or its
 * variable): an empty variable is the default (undefined), anything else a whole number from 1 to
 * MAX_RETENTION_DAYS. `whatToWrite` ends the refusal: "how many days ... e.g. 30".
 */
export function retentionDays(option: string, whatToWrite: string): (raw: string) => number | undefined {
  return (raw) => {
    if (raw === "") return undefined;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < 1 || n > MAX_RETENTION_DAYS) {
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not a whole number of days from 1 to ${MAX_RETENTION_DAYS}; write ${whatToWrite}`);
    }
    return n;
  };
}

/**
 * A commander argument parser for a directory given as an absolute path: the engine resolves a
 * Run's bind mounts on its own host, from the root, so a path relative to here would mean nothing there.
 * A path that is a file, or lies under one, is refused here, before a mkdir under it says EEXIST or ENOTDIR.
 */
export function absoluteDirectory(option: string): (raw: string) => string {
  return (raw) => {
    if (!isAbsolute(raw))
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not an absolute path; write it from the root, e.g. ${resolve(raw)}`);
    const file = fileInTheWay(raw);
    if (file !== undefined) {
      const what = file === raw ? "is a file, not a directory" : `lies under ${JSON.stringify(file)}, a file`;
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} ${what}; name a directory, or a path where one can be made`);
    }
    return raw;
  };
}

/** The path itself or its nearest existing ancestor when that is not a directory; undefined when a directory can be there. */
function fileInTheWay(path: string): string | undefined {
  for (let at = path; ; at = dirname(at)) {
    let found: Stats | undefined;
    try {
      found = statSync(at, { throwIfNoEntry: false });
    } catch (error) {
      // ENOTDIR: something above is a file, found further up; anything else (EACCES) is the mkdir's to tell.
      if ((error as NodeJS.ErrnoException).code === "ENOTDIR") continue;
      return undefined;
    }
    if (found !== undefined) return found.isDirectory() ? undefined : at;
    if (dirname(at) === at) return undefined;
  }
}

/** A commander argument parser for an amount of dollars above 0. */
export function dollars(option: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw.replace(/^\$/, ""));
    if (raw.trim() === "" || !Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${option} ${JSON.stringify(raw)} is not an amount of dollars above 0; write e.g. 0.50`);
    return n;
  };
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** The agent request's field names as the command line spells them, for errors the library words. */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  "budget.maxTokens": "--max-tokens",
  "budget.maxCostUsd": "--max-cost",
  "budget.maxWallSeconds": "--max-wall",
  stallSeconds: "--stall",
  maxTurns: "--max-turns",
  timeoutSeconds: "--timeout",
  resumeSession: "--resume",
  model: "--model",
  effort: "--effort",
};

/** A library message about the request, with each field named as the option that sets it. */
export function inFlagWords(message: string): string {
  return message
    .replace(/the networkPolicy "(\w+)" or "(\w+)"/g, "--network-policy $1 or $2")
    .replace(
      /(budget\.maxTokens|budget\.maxCostUsd|budget\.maxWallSeconds|\bstallSeconds|\bmaxTurns|\btimeoutSeconds|\bresumeSession|\bmodel|\beffort)\b(?= ["0-9-])/g,
      (field) => FLAG_OF_FIELD[field] ?? field,
    );
}

/**
 * A Run's error in the command's words: the library names the inputs, the destination and a
 * session to resume by their option names (inputs, harvestTo, sessionStore); the command by its flags.
 */
export function inCommandWords(error: string): string {
  return error
    .replace(/^(inputs? )/, "--in: $1")
    .replace(/^harvestTo (".*?") /, "--out $1 ")
    .replace(/replaceHarvestTo: true/g, "--replace")
    .replace(/inputs\.exclude: \["([^"\]]+)"\]/g, "--exclude $1")
    .replace(
      /^session ("[^"]+") has no kept store of (\S+) in this Staging Directory; pass the sessionId an earlier Outcome of this runner reported, or start a new session$/,
      "--resume $1 names no session of $2 kept under --runtime-dir; pass a session id an earlier run printed, or leave --resume out",
    );
}

/** Each engine of --engine (or of AGENTCAGE_ENGINES, space-separated) read now, so a bad one is a usage error naming --engine. */
export function engineFlag(value: string, previous: readonly string[] = []): string[] {
  const given = value.split(/\s+/).filter((one) => one !== "");
  given.forEach((one, i) => {
    try {
      parseEngineSpec(one, "--engine", previous.length + i);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  });
  return [...previous, ...given];
}
