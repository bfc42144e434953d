// The sweep of a long-running service: once at start (serve does it before it listens), then every
// SWEEP_INTERVAL_MS, so kept session stores and Run directories past their retention go while it
// runs. One sweep at a time: a tick that finds the last one still going is skipped, and stop()
// waits for the one in flight. A sweep that fails is logged and tried again at the next tick.

import type { Logger } from "pino";

export type PeriodicSweep = {
  /** No more ticks; resolves once a sweep in flight has ended. */
  readonly stop: () => Promise<void>;
};

export function startPeriodicSweep(sweep: () => Promise<unknown>, intervalMs: number, logger: Logger): PeriodicSweep {
  let inFlight: Promise<void> | undefined;
  const tick = (): void => {
    if (inFlight !== undefined) return;
    inFlight = sweep()
      .then(
        () => undefined,
        (error: unknown) =>
          logger.warn({ err: error instanceof Error ? error.message : String(error) }, "the periodic sweep failed; it runs again at the next interval"),
      )
      .finally(() => (inFlight = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  // A service with nothing else to do exits; its sweep never holds it up.
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await inFlight;
    },
  };
}
