// Waiting on a peer (a proxy, a stand-in, an engine) for as long as it lives: an answer that is
// late is counted and waited for again; only a peer shown gone (its container not running, its
// socket refusing) ends the wait.
// Invariant: whileAlive rejects for one reason only, a GoneError, whose `why` the peer's own check gave.

import { patientTimer } from "./patient-bound.js";

/** The peer was shown gone: `why` says how (said after "it": "is not running (exit code 137)"). */
export class GoneError extends Error {
  override readonly name = "GoneError";
  constructor(readonly why: string) {
    super(why);
  }
}

export type WhileAliveOptions = {
  /** Asks whether the peer is shown gone now: why, or undefined when it lives or cannot be told (which counts as alive). Must not throw. */
  readonly gone: () => Promise<string | undefined>;
  /** How long an answer takes on an idle machine; after it (stretched by the load) the peer is asked, then again after each such wait. */
  readonly checkEveryMs: number;
  /** Told each time the answer was late and the peer was found alive: how long it has waited so far. Must not throw. */
  readonly onSlow?: (waitedMs: number) => void;
};

/** `work`'s answer however long it takes while the peer lives; a GoneError as soon as a check shows it gone. */
export function whileAlive<T>(work: Promise<T>, { gone, checkEveryMs, onSlow }: WhileAliveOptions): Promise<T> {
  const started = performance.now();
  let timer: { cancel: () => void } | undefined;
  let settled = false;
  const shownGone = new Promise<never>((_, reject) => {
    const arm = (): void => {
      timer = patientTimer(checkEveryMs, () => {
        void gone().then((why) => {
          if (settled) return;
          if (why !== undefined) {
            reject(new GoneError(why));
            return;
          }
          onSlow?.(Math.round(performance.now() - started));
          arm();
        });
      });
    };
    arm();
  });
  return Promise.race([work, shownGone]).finally(() => {
    settled = true;
    timer?.cancel();
  });
}
