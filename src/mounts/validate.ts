// What a Mount Table may say, decided from the value alone before anything runs. Every refusal
// is a MountTableError of one sentence that quotes the offending value and says what to write
// instead. Invariant: a table that passes binds only what the Operator named under the Staging
// Directory: no "." or ".." segment, no NUL byte, one entry per target.
import { posix } from "node:path";
import { AgentcageError } from "../errors/index.js";
import { normalizePath, type Mount, type MountTable } from "./mount.js";

/** A Mount Table that cannot mean anything; thrown where the Operator wrote it. */
export class MountTableError extends AgentcageError {
  override readonly name = "MountTableError";
  readonly code = "invalid_mount_table";
}

/** Throws a MountTableError on the first thing wrong with `table`. */
export function validateMountTable(table: MountTable): void {
  const { runtimeDir } = table;
  refuseNul("runtimeDir", runtimeDir);
  if (!posix.isAbsolute(runtimeDir)) {
    throw new MountTableError(`runtimeDir ${quote(runtimeDir)} is not absolute; write the Staging Directory as an absolute host path.`);
  }
  if (hasDotSegment(runtimeDir)) {
    throw new MountTableError(`runtimeDir ${quote(runtimeDir)} has a "." or ".." segment; write the Staging Directory's absolute path without them.`);
  }

  const firstIndexByTarget = new Map<string, number>();
  table.entries.forEach((entry, index) => {
    validateEntry(entry, `entries[${index}]`);
    const target = normalizePath(entry.agentPath);
    const firstIndex = firstIndexByTarget.get(target);
    if (firstIndex !== undefined) {
      throw new MountTableError(`entries[${firstIndex}] and entries[${index}] both target ${quote(target)}; keep one entry per agentPath.`);
    }
    firstIndexByTarget.set(target, index);
  });
}

function validateEntry({ agentPath, path }: Mount, at: string): void {
  refuseNul(`${at}.agentPath`, agentPath);
  refuseNul(`${at}.path`, path);
  if (agentPath === "") {
    throw new MountTableError(`${at}.agentPath ${quote(agentPath)} is empty; write the absolute path the agent sees inside its container, such as "/work".`);
  }
  if (!posix.isAbsolute(agentPath)) {
    throw new MountTableError(`${at}.agentPath ${quote(agentPath)} is not absolute; write the path the agent sees inside its container, starting with "/".`);
  }
  if (hasDotSegment(agentPath)) {
    throw new MountTableError(`${at}.agentPath ${quote(agentPath)} has a "." or ".." segment; write the target path without them.`);
  }
  if (normalizePath(agentPath) === "/") {
    throw new MountTableError(
      `${at}.agentPath ${quote(agentPath)} is the container's root, which the daemon refuses; bind a directory below it, such as "/work".`,
    );
  }
  if (path.startsWith("/")) {
    throw new MountTableError(`${at}.path ${quote(path)} starts with "/"; write it relative to the Staging Directory, or "" for the directory itself.`);
  }
  if (hasDotSegment(path)) {
    throw new MountTableError(
      `${at}.path ${quote(path)} has a "." or ".." segment; write it relative to the Staging Directory without them, or "" for the directory itself.`,
    );
  }
}

function refuseNul(field: string, value: string): void {
  if (value.includes("\0")) {
    throw new MountTableError(`${field} ${quote(value)} holds a NUL byte; write the path without it.`);
  }
}

/** Only exact "." and ".." segments count: "..hidden" and ".config" are ordinary names. */
function hasDotSegment(path: string): boolean {
  return path.split("/").some((segment) => segment === "." || segment === "..");
}

function quote(value: string): string {
  return JSON.stringify(value);
}
