// One Pod's state as the API announces it, with waits on it: the watch is the only source, and it
// is started again when the server ends it (API servers end watches after a while by design).
// Invariant: every wait is bounded; a wait that times out answers the last state seen, never hangs.
import type { KubeApi } from "./kube-api.js";
import { type PodState, podState } from "./pod-status.js";

export type PodWatcher = {
  /** The first state that satisfies `done`, or the last seen when `timeoutMs` passes first. */
  readonly until: (done: (state: PodState) => boolean, timeoutMs: number) => Promise<{ readonly state: PodState; readonly timedOut: boolean }>;
  readonly stop: () => void;
};

const REWATCH_DELAY_MS = 200;

export function watchPod(api: KubeApi, namespace: string, name: string): PodWatcher {
  let state: PodState = { kind: "starting" };
  let stopped = false;
  let current: { stop: () => void } | undefined;
  const waiters = new Set<() => void>();
  const start = (): void => {
    api
      .watchPod(
        namespace,
        name,
        (pod) => {
          state = podState(pod);
          for (const wake of waiters) wake();
        },
        () => {
          if (!stopped) setTimeout(start, REWATCH_DELAY_MS).unref();
        },
      )
      .then(
        (handle) => {
          current = handle;
          if (stopped) handle.stop();
        },
        () => {
          if (!stopped) setTimeout(start, REWATCH_DELAY_MS).unref();
        },
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
        const timer = setTimeout(() => finish(true), timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: () => {
      stopped = true;
      current?.stop();
    },
  };
}
