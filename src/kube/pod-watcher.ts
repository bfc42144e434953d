// One Pod's state as the API announces it, with waits on it: the watch is the only source, and it
// is started again when the server ends it (API servers end watches after a while by design), after
// a backoff that grows while it fails. The Pod is shown gone when the API says it was deleted, and
// the API server when WATCH_REFUSALS_GONE watches in a row were refused (slow is not dead: docs/operations.md): each
// becomes a `refused` state, which ends every wait on the Pod. A slow server is waited for.
// Invariant: a wait with a bound answers the last state seen when it passes; one without ends only
// at a state it waits for, and every `refused` one is final.
import { apiMessage, apiShownGone } from "./kube-error.js";
import type { KubeApi } from "./kube-api.js";
import { WATCH_REFUSALS_GONE, WATCH_RETRY_MAX_MS, WATCH_RETRY_MIN_MS } from "./limits.js";
import { type PodState, podState } from "./pod-status.js";

export type PodWatcher = {
  /** The first state that satisfies `done`, or the last seen when `timeoutMs` (none: no bound) passes first. */
  readonly until: (done: (state: PodState) => boolean, timeoutMs?: number) => Promise<{ readonly state: PodState; readonly timedOut: boolean }>;
  readonly stop: () => void;
};

export function watchPod(api: KubeApi, namespace: string, name: string): PodWatcher {
  let state: PodState = { kind: "starting" };
  let stopped = false;
  let current: { stop: () => void } | undefined;
  /** Watches in a row that ended in an error, for the backoff; and of them, refused in a row. */
  let failures = 0;
  let refusals = 0;
  const waiters = new Set<() => void>();
  const tell = (next: PodState): void => {
    state = next;
    for (const wake of waiters) wake();
  };
  const ended = (error?: unknown): void => {
    if (stopped) return;
    if (error === undefined || error === null) failures = 0;
    else failures += 1;
    refusals = error !== undefined && error !== null && apiShownGone(error) ? refusals + 1 : 0;
    if (refusals >= WATCH_REFUSALS_GONE) {
      stopped = true;
      tell({
        kind: "refused",
        reason: "ApiServerGone",
        message: `the Kubernetes API server ${api.server} refused ${refusals} watches of the Pod in a row (${apiMessage(error)}); the Run cannot be followed or ended there`,
      });
      return;
    }
    setTimeout(start, Math.min(WATCH_RETRY_MIN_MS * 2 ** failures, WATCH_RETRY_MAX_MS)).unref();
  };
  const start = (): void => {
    if (stopped) return;
    api
      .watchPod(
        namespace,
        name,
        (pod, deleted) => {
          failures = 0;
          refusals = 0;
          const seen = podState(pod);
          // Deleted before it ended (by someone else, or its node's eviction): gone, its exit never to come.
          if (deleted === true && seen.kind !== "ended") {
            stopped = true;
            current?.stop();
            tell({ kind: "refused", reason: "PodDeleted", message: "the Pod was deleted (not by this Run) before its agent's end was reported" });
            return;
          }
          tell(seen);
        },
        ended,
      )
      .then(
        (handle) => {
          current = handle;
          if (stopped) handle.stop();
        },
        (error: unknown) => ended(error ?? new Error("the watch could not start")),
      );
  };
  start();
  return {
    until: (done, timeoutMs) =>
      new Promise((resolve) => {
        const finish = (timedOut: boolean) => {
          waiters.delete(check);
          clearTimeout(timer);
          resolve({ state, timedOut });
        };
        const check = () => {
          if (done(state)) finish(false);
        };
        const timer = timeoutMs === undefined ? undefined : setTimeout(() => finish(true), timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: () => {
      stopped = true;
      current?.stop();
    },
  };
}
