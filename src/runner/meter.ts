// Watching the egress proxy's meter while a proxied Run goes: each change as a `metered` event (the
// provider's own counts, even for a CLI that prints its usage only at the end), each streamed answer
// as a sign of life, and a proxy that stops answering as the end of the Run.
// Invariant: once the Run's token is revoked, nothing read from the proxy ends or tells the Run anything.

import type { RunMeter } from "../egress/index.js";
import type { EgressGateway } from "../gateway/index.js";
import type { AgentEvent } from "../agents/index.js";
import { EGRESS_GONE_AFTER_MISSES, METER_EVENT_INTERVAL_MS, METER_READ_TIMEOUT_MS } from "./limits.js";
import type { ProxiedRun } from "./network-policy.js";

/**
 * While a proxied Run goes on, the proxy's meter as `metered` events, each time it changed: the
 * provider's own counts, even for a CLI that prints its usage only at the end.
 */
export function watchMeter(
  gateway: EgressGateway,
  proxied: ProxiedRun,
  tell: (event: AgentEvent) => void,
  gone: (message: string) => void,
): { stop: () => void } {
  const { runId } = proxied;
  let last = "";
  let stopped = false;
  let missed = 0;
  const read = async (): Promise<void> => {
    const { meter, failure } = await readMeter(gateway, runId);
    // Revoked (the agent is gone): what is left of the Run (its out/ copied back, its Harvest) needs no proxy.
    if (stopped || proxied.revoked()) return;
    if (failure !== undefined) {
      // The agent cannot reach its model any more: end the Run now, not when the CLI gives up.
      missed += 1;
      if (missed >= EGRESS_GONE_AFTER_MISSES) gone(`the egress proxy went away: it ${failure}; the Run cannot reach its model without it`);
      return;
    }
    missed = 0;
    if (meter === undefined) return;
    proxied.observe(meter);
    const seen = JSON.stringify([meter.turns, meter.tokens, meter.usage.cacheReadTokens, meter.refused]);
    if (seen === last) return;
    last = seen;
    tell({ type: "metered", turns: meter.turns, usage: meter.usage, costUsd: meter.costUsd, refused: meter.refused });
  };
  const timer = setInterval(() => void read(), METER_EVENT_INTERVAL_MS);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** One reading of the Run's meter, or why there is none (said after "it"). */
async function readMeter(gateway: EgressGateway, runId: string): Promise<{ meter?: RunMeter; failure?: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    // A proxy that hangs is as gone as one that died: a reading is given up after a while.
    const late = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${METER_READ_TIMEOUT_MS} ms`)), METER_READ_TIMEOUT_MS)),
    );
    const meter = await Promise.race([gateway.meter(runId), late]);
    return meter === undefined ? { failure: "no longer knows the Run (it restarted, and the Run's token died with it)" } : { meter };
  } catch (error) {
    const code = /\b(E[A-Z]{3,})\b/.exec(error instanceof Error ? error.message : String(error))?.[1];
    return { failure: `does not answer on its control endpoint${code === undefined ? "" : ` (${code})`}` };
  } finally {
    clearTimeout(timer);
  }
}
