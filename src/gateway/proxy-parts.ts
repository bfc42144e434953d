// What every egress proxy this process starts shares, on an engine or in a cluster: its public
// configuration, the Run id its readiness is asked with, and when one left behind is an orphan.

import { EGRESS_PROVIDER_NAMES, EGRESS_PROVIDERS, EGRESS_VARIABLES } from "../egress/index.js";
import type { ModelProvider } from "../plan/index.js";
import { orphanedBecause, ownershipFromLabels, thisProcess } from "../runtime/index.js";

/** The proxy is a small Node server: bounds below an agent's, with room for the request bodies it may hold (MAX_HELD_REQUEST_BYTES). */
export const PROXY_LIMITS = { memoryBytes: 512 * 1024 * 1024, pids: 64, tmpfsBytes: 16 * 1024 * 1024, stopGraceSeconds: 5 } as const;

/** A Run id no Run has: asking its meter (404) says the control endpoint answers, with this secret. */
export const READINESS_PROBE = "agentcage-readiness";

/**
 * The proxy's variables anyone may read: where it listens for agents, its control place (`control`,
 * the socket and where its secret comes from), its log level, the stand-in switch, the upstreams.
 */
export function proxyEnvironment(
  options: { readonly logLevel?: string; readonly standIn?: boolean; readonly upstreams?: Readonly<Partial<Record<ModelProvider, string>>> },
  port: number,
  control: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    [EGRESS_VARIABLES.host]: "0.0.0.0",
    [EGRESS_VARIABLES.port]: String(port),
    ...control,
    [EGRESS_VARIABLES.logLevel]: options.logLevel ?? "info",
    AGENTCAGE_STAND_IN: options.standIn === true ? "1" : "0",
    // Each provider's upstream in its own variable (its file's upstreamVariable).
    ...Object.fromEntries(
      EGRESS_PROVIDER_NAMES.flatMap((provider) => {
        const upstream = options.upstreams?.[provider];
        return upstream === undefined ? [] : [[EGRESS_PROVIDERS[provider].upstreamVariable, upstream]];
      }),
    ),
  };
}

/**
 * Why a proxy with these ownership labels was left behind by a dead process (the containers' rules:
 * host, pid and start time), or undefined while it is live; this process's own proxies are live
 * until their close() removes them.
 */
export function orphanedProxyBecause(labels: Readonly<Record<string, string>>, session: string): string | undefined {
  const me = thisProcess();
  const ownership = ownershipFromLabels(labels);
  if (ownership.host === me.host && ownership.pid === me.pid && ownership.pidStart === me.pidStart) return undefined;
  return orphanedBecause("", ownership, { session, me, isLive: () => false, now: Date.now() });
}
