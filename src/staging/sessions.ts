// Session stores: what an agent CLI keeps of a session (its conversation log) outlives the Run's
// container in `<runtimeDir>/sessions/<namespace>/<id>/`, so a later Run can resume it. A Run gets
// a working copy only when it names the session; what it leaves is checked like a Harvest
// (regular files and directories, bounded) before it replaces the kept store.

import { access, lutimes, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { HarvestResult } from "../plan/index.js";
import { harvest } from "./harvest/index.js";
import { sessionStorePath, type RunDirectory } from "./layout.js";
import { MAX_SESSION_FILE_BYTES, MAX_SESSION_STORE_BYTES, MAX_SESSION_STORE_DEPTH, MAX_SESSION_STORE_ENTRIES } from "./limits.js";
import { grantToAgent, numericUser } from "./prepare.js";
import { removeTree } from "./remove-tree.js";
import { canBoundWrites, copyContents, mountWritable } from "./writable.js";

/** A session namespace (one per CLI) or a session id: a safe single path component. */
export const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

const STORE_LIMITS = {
  maxDepth: MAX_SESSION_STORE_DEPTH,
  maxEntries: MAX_SESSION_STORE_ENTRIES,
  maxFileBytes: MAX_SESSION_FILE_BYTES,
  maxTotalBytes: MAX_SESSION_STORE_BYTES,
} as const;

export async function sessionStoreExists(runtimeDir: string, namespace: string, id: string): Promise<boolean> {
  return access(sessionStorePath(runtimeDir, namespace, id)).then(
    () => true,
    () => false,
  );
}

/**
 * Marks the kept store of session `id` as used now (its mtime, which the retention counts from), so
 * no sweep takes it while a Run resumes it. Resolves false when there is no such store.
 */
export async function touchSessionStore(runtimeDir: string, namespace: string, id: string, now: Date = new Date()): Promise<boolean> {
  return lutimes(sessionStorePath(runtimeDir, namespace, id), now, now).then(
    () => true,
    () => false,
  );
}

/**
 * Makes the Run's working copy of a session store (a copy of the kept one when resuming, else an
 * empty directory), writable by the agent: here, or (`mount` false, a numeric agent user) in the
 * volume of the Run's own it is put into, whose archive makes the agent its owner. Resolves with
 * why it could not, or undefined.
 */
export async function openSessionStore(
  run: RunDirectory,
  runtimeDir: string,
  namespace: string,
  resume: string | undefined,
  agentUser: string,
  /** Bound it with a tmpfs mounted here, where this process may mount; false: the runtime bounds it (a volume of the Run's own, which it also hands to the agent). Default true. */
  mount = true,
): Promise<string | undefined> {
  // Checked first (as a Harvest is), onto the disk beside the Run's working copy.
  const incoming = `${run.session}.in`;
  if (resume !== undefined) {
    const copied = await harvest(sessionStorePath(runtimeDir, namespace, resume), incoming, STORE_LIMITS);
    if (!copied.ok) return `the kept store of session ${JSON.stringify(resume)} cannot be handed over: ${copied.refusal.message}`;
  }
  await mkdir(run.session, { mode: 0o755 });
  // What the agent writes there is bounded like out/: a tmpfs of the store's own size, where we may mount.
  if (mount && canBoundWrites()) await mountWritable(run.session, MAX_SESSION_STORE_BYTES, MAX_SESSION_STORE_ENTRIES);
  if (resume !== undefined) {
    await copyContents(incoming, run.session);
    await removeTree(incoming);
  }
  // In a volume of the Run's own, the archive makes a numeric agent user its owner; here it stays as copied.
  if (mount || numericUser(agentUser) === undefined) await grantToAgent(run.session, agentUser);
  return undefined;
}

/**
 * Keeps what the Run left in its working copy as the store of session `id`, replacing the kept one
 * whole: a new directory, so its mtime (the retention's "last use") is now.
 */
export async function keepSessionStore(run: RunDirectory, runtimeDir: string, namespace: string, id: string): Promise<HarvestResult> {
  const kept = sessionStorePath(runtimeDir, namespace, id);
  await mkdir(dirname(kept), { recursive: true, mode: 0o700 });
  return harvest(run.session, kept, { ...STORE_LIMITS, replace: true });
}
