// The Runs of this process that are under way, across every runtime in it. A sweep never
// removes a container or Run directory listed here; two processes must not share an owner. An id
// may be held more than once (each add is undone by one delete).
// Likewise the session stores a Run of this process is resuming: no sweep takes one of them.

import { resolve } from "node:path";

/** Each id's holders: a Run is live from its slot, and a warm Run's directory stays live until its tidying after the Outcome is done. */
const live = new Map<string, number>();

export const liveRuns = {
  add: (runId: string): void => void live.set(runId, (live.get(runId) ?? 0) + 1),
  delete: (runId: string): void => {
    const left = (live.get(runId) ?? 0) - 1;
    if (left > 0) live.set(runId, left);
    else live.delete(runId);
  },
  has: (runId: string): boolean => live.has(runId),
};

/** Runs using each store, by `<runtimeDir>\0<namespace>\0<id>`: two Runs may resume one session at once. */
const storesInUse = new Map<string, number>();
const storeKey = (runtimeDir: string, namespace: string, id: string): string => `${resolve(runtimeDir)}\0${namespace}\0${id}`;

export const liveSessionStores = {
  add: (runtimeDir: string, namespace: string, id: string): void => {
    const key = storeKey(runtimeDir, namespace, id);
    storesInUse.set(key, (storesInUse.get(key) ?? 0) + 1);
  },
  delete: (runtimeDir: string, namespace: string, id: string): void => {
    const key = storeKey(runtimeDir, namespace, id);
    const left = (storesInUse.get(key) ?? 0) - 1;
    if (left > 0) storesInUse.set(key, left);
    else storesInUse.delete(key);
  },
  has: (runtimeDir: string, namespace: string, id: string): boolean => storesInUse.has(storeKey(runtimeDir, namespace, id)),
};

/**
 * Marks the kept session store `id` of `namespace` as in use until the returned release is called
 * (once; later calls do nothing): no sweep of this process takes it meanwhile.
 */
export function holdSessionStore(runtimeDir: string, namespace: string, id: string): () => void {
  liveSessionStores.add(runtimeDir, namespace, id);
  let held = true;
  return () => {
    if (held) liveSessionStores.delete(runtimeDir, namespace, id);
    held = false;
  };
}
