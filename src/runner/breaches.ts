// Listening for the egress proxy's breach reports (a model call refused past a Run's budget) and
// handing each to the live Run it names. One listener per proxy for the runner's whole life.
// Invariant: a proxied Run starts only once the breach stream is open, so none of its breaches is missed.

import type { EgressBreach } from "../egress/index.js";
import type { EgressGateway } from "../gateway/index.js";
import { EGRESS_EVENTS_OPEN_MS } from "./limits.js";

export type BreachListener = {
  /** Listens to the proxy (once per proxy: over several engines, each engine's), and resolves when its breach stream is open; rejects if it does not open in time. */
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
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`its breach event stream did not open within ${EGRESS_EVENTS_OPEN_MS} ms (EGRESS_EVENTS_OPEN_MS); is the proxy running?`)),
          EGRESS_EVENTS_OPEN_MS,
        );
      });
      await Promise.race([proxy.eventsOpen(), late]).finally(() => clearTimeout(timer));
    },
    atSource: (runId, onBreach) => void atSource.set(runId, onBreach),
    forget: (runId) => void atSource.delete(runId),
  };
}
