// Listening for the egress proxy's breach reports (a model call refused past a Run's budget) and
// handing each to the live Run it names. One listener per proxy for the runner's whole life.
// Invariant: a proxied Run starts only once the breach stream is open, so none of its breaches is missed.

import type { EgressBreach } from "../egress/index.js";
import type { EgressGateway } from "../gateway/index.js";
import { describeBound, GoneError, whileAlive, withinPatience } from "../liveness/index.js";
import { EGRESS_EVENTS_OPEN_MS, METER_READ_SLOW_MS } from "./limits.js";

export type BreachListener = {
  /**
   * Listens to the proxy (once per proxy: over several engines, each engine's), and resolves when its
   * breach stream is open; rejects when the proxy is shown gone, or the stream has not opened within
   * EGRESS_EVENTS_OPEN_MS stretched by the machine's load.
   */
  readonly hear: (proxy: EgressGateway) => Promise<void>;
  /** Hands the breaches of the Run to `onBreach` until `forget`. */
  readonly atSource: (runId: string, onBreach: (breach: EgressBreach) => void) => void;
  readonly forget: (runId: string) => void;
};

export function createBreachListener(): BreachListener {
  /** Live proxied Runs by their id. */
  const atSource = new Map<string, (breach: EgressBreach) => void>();
  const heard = new WeakSet<EgressGateway>();
  return {
    hear: async (proxy) => {
      if (!heard.has(proxy)) {
        proxy.onBreach((breach) => atSource.get(breach.runId)?.(breach));
        heard.add(proxy);
      }
      const open = whileAlive(proxy.eventsOpen(), { gone: proxy.gone, checkEveryMs: METER_READ_SLOW_MS }).catch((error: unknown) => {
        throw error instanceof GoneError ? new Error(`it ${error.why}`) : error;
      });
      await withinPatience(
        open,
        EGRESS_EVENTS_OPEN_MS,
        (hit) => new Error(`its breach event stream did not open within ${describeBound(hit)} (EGRESS_EVENTS_OPEN_MS), though it runs`),
      );
    },
    atSource: (runId, onBreach) => void atSource.set(runId, onBreach),
    forget: (runId) => void atSource.delete(runId),
  };
}
