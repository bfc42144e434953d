// What serve's start has made so far, closed last to first when the start ends before it serves (a
// refusal, a failure, its signal): nothing it started is left running, no container above all.
// Invariant: the signal is checked between the steps, and each step that starts a container (the
// assembly) is handed it too, so a stop at any moment of the start ends it at once. A step that
// takes long is said every STILL_STARTING_EVERY_MS, so an Operator whose service is not up yet
// reads which step it waits on.

import { ServeError } from "./serve-options.js";

/** How often a step still running is said (a report to a person, not a bound: nothing ends for it). */
export const STILL_STARTING_EVERY_MS = 15_000;

/** Told while a step of the start still runs: its name and how long so far. */
export type StillStarting = (step: string, waitedMs: number) => void;

export type StartUp = {
  /** Keeps how to close one thing the start made; undo() calls it. */
  readonly made: (close: () => Promise<unknown> | unknown) => void;
  /** Throws (ServeError) once the signal was aborted: the start goes no further. */
  readonly goOn: () => void;
  /** Closes everything made, last first, each whatever the others do. */
  readonly undo: () => Promise<void>;
  /** Awaits one named step, telling stillStarting every STILL_STARTING_EVERY_MS while it runs. */
  readonly during: <T>(step: string, work: Promise<T>) => Promise<T>;
};

export function startUp(signal: AbortSignal | undefined, stillStarting?: StillStarting, everyMs = STILL_STARTING_EVERY_MS): StartUp {
  const closers: Array<() => Promise<unknown> | unknown> = [];
  return {
    during: async (step, work) => {
      if (stillStarting === undefined) return work;
      const began = performance.now();
      const timer = setInterval(() => stillStarting(step, Math.round(performance.now() - began)), everyMs);
      timer.unref();
      try {
        return await work;
      } finally {
        clearInterval(timer);
      }
    },
    made: (close) => void closers.push(close),
    goOn: () => {
      if (signal?.aborted === true) throw stoppedWhileStarting(signal);
    },
    undo: async () => {
      for (const close of closers.splice(0).reverse()) {
        try {
          await close();
        } catch {
          // One thing that would not close keeps none of the others running.
        }
      }
    },
  };
}

/** The refusal of a start its signal ended, with the signal's reason. */
export function stoppedWhileStarting(signal: AbortSignal): ServeError {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "aborted";
  return new ServeError(`serve was stopped while it started (${why}); what it had started is stopped`);
}
