// The one egress proxy of a runner over one engine, on the runtime's board of degradations: shown
// gone (its container not running, its socket refusing), every Run under the policy is refused until
// it runs again; said once when it begins (by a readiness check or a Run that found it so) and once when it ends.
// Invariant: only a proxy shown gone raises it; a slow one is not degraded.

import type { EgressGateway } from "../gateway/index.js";
import type { Degradations } from "../runtime/index.js";

/** Raises or clears the proxy's degradation from what it shows now; resolves with why it is gone, or undefined. */
export async function checkProxy(gateway: EgressGateway, degradations: Degradations): Promise<string | undefined> {
  const why = await gateway.gone().catch(() => undefined);
  if (why === undefined) degradations.clear("egress-proxy");
  else proxyGone(degradations, gateway, why);
  return why;
}

/** The proxy was shown gone: every Run under `model` or `allowlist` cannot reach its model until one runs again. */
export function proxyGone(degradations: Degradations, gateway: EgressGateway, why: string): void {
  degradations.raise({
    kind: "egress-proxy",
    reason: `the egress proxy ${JSON.stringify(gateway.container)} ${why}: every Run under the network policy ends unavailable until one runs again`,
    fix: "see why its container went (docker events, this service's log), then restart the service, which starts a new one",
    stopsRuns: true,
  });
}
