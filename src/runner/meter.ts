// Watching the egress proxy's meter while a proxied Run goes: each change as a `metered` event (the
// provider's own counts, even for a CLI that prints its usage only at the end), and a proxy shown
// gone (its container not running, its socket refusing) as the end of the Run. A reading that is
// late is a slow proxy: told once as an `egress_slow` event, waited for, and the next read later.
// Invariant: one reading at a time; once the Run's token is revoked or its agent has answered,
// nothing read from the proxy ends the Run.

import type { RunMeter } from "../egress/index.js";
import type { EgressGateway } from "../gateway/index.js";
import type { AgentEvent } from "../agents/index.js";
import { GoneError, whileAlive } from "../liveness/index.js";
import { METER_EVENT_INTERVAL_MS, METER_MAX_INTERVAL_MS, METER_READ_SLOW_MS } from "./limits.js";
import type { ProxiedRun } from "./network-policy.js";

export type MeterWatch = {
  /** Readings that were late (slow, then answered or not), so far. */
  readonly slowReadings: () => number;
  readonly stop: () => void;
};

/**
 * While a proxied Run goes on, the proxy's meter as `metered` events, each time it changed. `gone`
 * ends the Run, told only when the proxy is shown gone and the agent has not yet answered (`answered`).
 */
export function watchMeter(
  gateway: EgressGateway,
  proxied: ProxiedRun,
  tell: (event: AgentEvent) => void,
  gone: (message: string, why: string) => void,
  answered: () => boolean,
): MeterWatch {
  const { runId } = proxied;
  let last = "";
  let stopped = false;
  let slow = 0;
  let timer: NodeJS.Timeout | undefined;
  // After a reading that failed or was late, the next waits longer (doubling), so a busy proxy is asked less.
  let intervalMs = METER_EVENT_INTERVAL_MS;
  const over = (): boolean => stopped || proxied.revoked();

  const shownGone = (why: string): void => {
    if (over() || answered()) return;
    gone(`the egress proxy went away: it ${why}; the Run cannot reach its model without it`, why);
  };

  const read = async (): Promise<void> => {
    let told = false;
    const reading = whileAlive(gateway.meter(runId), {
      gone: gateway.gone,
      checkEveryMs: METER_READ_SLOW_MS,
      onSlow: (waitedMs) => {
        if (told || over()) return;
        told = true;
        slow += 1;
        tell({ type: "egress_slow", waitedSeconds: Math.round(waitedMs / 1000) });
      },
    });
    let meter: RunMeter | undefined;
    try {
      meter = await reading;
    } catch (error) {
      if (error instanceof GoneError) return shownGone(error.why);
      // A reading that failed (the request's own bound on a busy machine, a bridge that broke): the
      // proxy is gone only if it shows so now; else it is asked again, later.
      const why = await gateway.gone().catch(() => undefined);
      if (why !== undefined) return shownGone(why);
      intervalMs = Math.min(intervalMs * 2, METER_MAX_INTERVAL_MS);
      return;
    }
    intervalMs = told ? Math.min(intervalMs * 2, METER_MAX_INTERVAL_MS) : METER_EVENT_INTERVAL_MS;
    if (over()) return;
    // The proxy answers but no longer knows the Run: it was started again, and the Run's token died with the old one.
    if (meter === undefined) return shownGone("no longer knows the Run (it restarted, and the Run's token died with it)");
    proxied.observe(meter);
    const seen = JSON.stringify([meter.turns, meter.tokens, meter.usage.cacheReadTokens, meter.refused]);
    if (seen === last) return;
    last = seen;
    tell({ type: "metered", turns: meter.turns, usage: meter.usage, costUsd: meter.costUsd, refused: meter.refused });
  };

  const next = (): void => {
    if (over()) return;
    timer = setTimeout(() => void read().finally(next), intervalMs);
    timer.unref();
  };
  next();
  return {
    slowReadings: () => slow,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
