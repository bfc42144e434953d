// The egress proxy as GET /v1/service shows it: the agents' network policy, whether serve started a
// proxy of its own or connected to the Operator's, where agents reach it, and whether its control
// endpoint answers now. Invariant: nothing here reads its control secret, its socket's path or a
// Run's token, so no view of it can hold one.

import type { EgressGateway, EgressGatewaySet } from "../../gateway/index.js";
import { withinPatience } from "../../liveness/index.js";
import { EGRESS_PROBE_TIMEOUT_MS } from "../limits.js";

export type EgressView = {
  /** "none" (the default), "model", "allowlist", "open"; "networks" when the Operator named the agents' networks by hand. */
  readonly networkPolicy: string;
  /** none: the policy needs no proxy; started: serve's own, started with it; connected: the Operator's (compose's egress service). */
  readonly proxy: "none" | "started" | "connected";
  readonly container?: string;
  readonly alias?: string;
  readonly port?: number;
  /**
   * Whether it lives: its control endpoint answered a read just now, or did not within
   * EGRESS_PROBE_TIMEOUT_MS (stretched by the load) and is not shown gone (then `slow`). False only
   * for a proxy shown gone (its container not running, its socket refusing).
   */
  readonly answering?: boolean;
  /** It lives, and did not answer within the probe's bound: a busy proxy, not a gone one. */
  readonly slow?: true;
};

export type EgressSetup = {
  readonly networkPolicy?: string;
  readonly agentNetworks?: readonly string[];
  /** Whether serve was given the Operator's proxy to connect to (else it started its own, when the policy needs one). */
  readonly connected: boolean;
  readonly gateway: EgressGateway | undefined;
  /** Over several engines: serve's own proxy on each. */
  readonly gateways?: EgressGatewaySet | undefined;
};

/** A Run id no Run has (Run ids are 16 hex digits): the proxy answers its meter "unknown" (404), which proves it answers. */
const PROBE_RUN_ID = "service-status-probe";

export function egressView(setup: EgressSetup): () => Promise<EgressView> {
  const networkPolicy = setup.networkPolicy ?? (setup.agentNetworks === undefined ? "none" : "networks");
  const { gateway, gateways } = setup;
  if (gateways !== undefined) {
    // One per engine, each its own container: the view names none, and answers while every one started answers.
    const where = { networkPolicy, proxy: "started", alias: gateways.alias, port: gateways.port } as const;
    return async () => {
      const started = await gateways.started();
      const each = await Promise.all(started.map((one) => answers(one.gateway)));
      return { ...where, answering: each.every((one) => one.answering), ...(each.some((one) => one.slow === true) ? { slow: true as const } : {}) };
    };
  }
  if (gateway === undefined) return async () => ({ networkPolicy, proxy: "none" });
  const where = {
    networkPolicy,
    proxy: setup.connected ? "connected" : "started",
    container: gateway.container,
    alias: gateway.alias,
    port: gateway.port,
  } as const;
  return async () => ({ ...where, ...(await answers(gateway)) });
}

/** Alive and prompt, alive and slow, or shown gone: only the last is not answering. */
async function answers(gateway: EgressGateway): Promise<{ readonly answering: boolean; readonly slow?: true }> {
  const answered = gateway.meter(PROBE_RUN_ID).then(
    () => "answered" as const,
    () => "failed" as const,
  );
  const said = await withinPatience(answered, EGRESS_PROBE_TIMEOUT_MS, () => new Error("late")).catch(() => "late" as const);
  if (said === "answered") return { answering: true };
  const gone = await gateway.gone().catch(() => undefined);
  return gone !== undefined ? { answering: false } : { answering: true, slow: true };
}
