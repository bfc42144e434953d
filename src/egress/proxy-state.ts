// What every step of one egress proxy shares, made once by createEgressProxy and passed to each:
// its validated options, its logger, its live Runs (by run id and by token), the request bytes it
// holds, its breach listeners, its connection pools upstream and its secrets.
// Invariant: a live Run is in `runs` and in `byToken` alike, or in neither (run-registry.ts).

import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { pino, type Logger } from "pino";
import type { LiveRun } from "./live-run.js";
import { validateProxyOptions, type EgressProxyOptions, type ValidatedOptions } from "./options.js";
import type { HeldBytes } from "./request-body.js";
import type { EgressBreach } from "./run.js";
import { createProxySecrets, type ProxySecrets } from "./secrets.js";

export type ProxyState = {
  readonly config: ValidatedOptions;
  readonly logger: Logger;
  /** Live Runs by run id. */
  readonly runs: Map<string, LiveRun>;
  /** The same Runs by their token's key (token.ts). */
  readonly byToken: Map<string, LiveRun>;
  /** Bytes of model-call bodies held for every Run at once (request-body.ts). */
  readonly heldBytes: HeldBytes;
  readonly listeners: Set<(breach: EgressBreach) => void>;
  readonly agents: { readonly http: HttpAgent; readonly https: HttpsAgent };
  readonly secrets: ProxySecrets;
};

/** Validates the options (throwing on one that cannot mean anything) and makes the empty state. */
export function createProxyState(options: EgressProxyOptions): ProxyState {
  const config = validateProxyOptions(options);
  const listeners = new Set<(breach: EgressBreach) => void>();
  if (options.onBreach !== undefined) listeners.add(options.onBreach);
  return {
    config,
    logger: options.logger ?? pino({ level: "silent" }),
    runs: new Map(),
    byToken: new Map(),
    heldBytes: { held: 0 },
    listeners,
    agents: { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) },
    secrets: createProxySecrets(),
  };
}
