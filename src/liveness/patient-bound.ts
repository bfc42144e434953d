// A time bound that is not a user's deadline: it waits what the wait takes on an idle machine,
// stretched by the load each time it is checked, so a busy host is never taken for a dead peer.
// Invariant: the bound only ever ends a wait when the scaled bound has passed at the moment it is checked.

import { loadFactor } from "./load.js";

/** How a bound that was hit is told: what it is when idle, and what the load made it. */
export type HitBound = { readonly idleMs: number; readonly boundMs: number; readonly waitedMs: number };

/** "20000 ms" on an idle machine; "20000 ms (62000 ms at this machine's load of 3.1 per core)" on a busy one. */
export function describeBound({ idleMs, boundMs }: Pick<HitBound, "idleMs" | "boundMs">): string {
  if (boundMs <= idleMs) return `${idleMs} ms`;
  return `${idleMs} ms (${boundMs} ms at this machine's load of ${(boundMs / idleMs).toFixed(1)} per core)`;
}

/**
 * Calls `expired` once `idleMs`, stretched by the load as it is when checked, has passed; checked
 * at the unscaled bound first and then again each time the stretched one would end.
 */
export function patientTimer(idleMs: number, expired: (hit: HitBound) => void): { readonly cancel: () => void } {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const waitedMs = Math.round(performance.now() - started);
    const boundMs = Math.round(idleMs * loadFactor());
    if (waitedMs >= boundMs) {
      expired({ idleMs, boundMs, waitedMs });
      return;
    }
    timer = setTimeout(check, boundMs - waitedMs);
    timer.unref?.();
  };
  timer = setTimeout(check, idleMs);
  timer.unref?.();
  return { cancel: () => clearTimeout(timer) };
}

/**
 * `work`'s answer, or `late(hit)`'s error once the patient bound passed first. The work itself is
 * not stopped: a caller that can abandon it does so in `late`.
 */
export function withinPatience<T>(work: Promise<T>, idleMs: number, late: (hit: HitBound) => Error): Promise<T> {
  let timer: { cancel: () => void } | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = patientTimer(idleMs, (hit) => reject(late(hit)));
  });
  return Promise.race([work, bound]).finally(() => timer?.cancel());
}
