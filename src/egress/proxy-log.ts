// What the proxy writes of itself: one line per request or tunnel, at its end, and one per budget
// breach, which also goes to every breach listener.
// Invariants: every line passes the proxy's masker first, so no credential or live token is ever
// written; a listener that throws is logged and stops no other listener.

import { performance } from "node:perf_hooks";
import type { RequestLog } from "./live-run.js";
import type { ProxyState } from "./proxy-state.js";
import type { EgressBreach } from "./run.js";

/** Writes a request's line, with its duration since `started` (performance.now()); a refusal at warn. */
export function logRequest(state: ProxyState, entry: RequestLog, started: number): void {
  entry.durationMs = Math.round((performance.now() - started) * 100) / 100;
  const line = state.secrets.masker().maskDeep(entry);
  if (entry.refused !== undefined) state.logger.warn(line, "egress refused");
  else state.logger.info(line, "egress");
}

/** Reports a Run passing a cap: one line, then each listener. */
export function emitBreach(state: ProxyState, breach: EgressBreach): void {
  const { logger, secrets } = state;
  logger.warn(secrets.masker().maskDeep({ runId: breach.runId, cap: breach.cap, limit: breach.limit, used: breach.used }), "egress budget passed");
  for (const listener of state.listeners) {
    try {
      listener(breach);
    } catch (error) {
      logger.error({ runId: breach.runId, error: secrets.masker().mask(String(error)) }, "egress breach listener threw");
    }
  }
}
