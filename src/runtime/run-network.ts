// A network of one Run's own: made before its container, joined by a running container the Run
// should reach (the egress proxy) under an alias, and removed after the Run whatever happened.
// Labelled like the Run's container, so a sweep removes what a crashed process left.

import { OWNER_LABEL, RUN_LABEL } from "../container/index.js";
import { describeEngineError, engineMessage, type Engine } from "../engine/index.js";
import { ENGINE_CLEANUP_TIMEOUT_MS } from "./limits.js";
import { bounded } from "./stop.js";

export type RunNetwork = {
  /**
   * "internal": the Run's members reach each other and nothing else (no route out, no address of
   * the engine's host on it). "open": a route out to the internet through the engine's NAT.
   */
  readonly kind: "internal" | "open";
  /** A running container joined to the Run's network for the Run only, known there by `alias` (the egress proxy as "egress"). */
  readonly attach?: { readonly container: string; readonly alias: string };
  /**
   * Called once the network exists, before the agent's container is made, with the address ranges
   * the engine gave it (the egress proxy binds the Run's token to them); a rejection refuses the Run.
   */
  readonly onOpened?: (opened: { readonly subnets: readonly string[] }) => Promise<void>;
  /** Called the moment the Run's container is seen gone, before its network is removed (the token dies then). */
  readonly onAgentGone?: () => void;
  /**
   * Called as the Run's stall watchdog starts, with what to call each time the peer sees the
   * agent's traffic live (bytes of its model's answer streaming to it): each call is a sign of life,
   * so a CLI that prints nothing while its answer streams is not stalled.
   */
  readonly liveness?: (alive: () => void) => void;
};

export const RUN_NETWORK_KINDS = ["internal", "open"] as const;

export function runNetworkName(runId: string): string {
  return `agentcage-net-${runId}`;
}

/** Why the network could not be made, or undefined once it exists with its attached member. */
export async function openRunNetwork(
  engine: Engine,
  runId: string,
  network: RunNetwork,
  labels: Readonly<Record<string, string>>,
  owner: string,
): Promise<string | undefined> {
  const name = runNetworkName(runId);
  let subnets: readonly string[] = [];
  try {
    ({ subnets } = await bounded(
      engine.createNetwork({ name, internal: network.kind === "internal", labels: { ...labels, [RUN_LABEL]: runId, [OWNER_LABEL]: owner } }),
      ENGINE_CLEANUP_TIMEOUT_MS,
      "create network",
    ));
  } catch (error) {
    const message = engineMessage(error);
    const pools = /available, non-overlapping|address pool/i.test(message)
      ? "; the engine has no address range left for another network: fewer Runs at once, or more ranges in the daemon's default-address-pools"
      : "";
    return `${describeEngineError("create network", error, name)}${pools}`;
  }
  if (network.attach !== undefined) {
    try {
      await bounded(engine.connectNetwork(name, network.attach.container, [network.attach.alias]), ENGINE_CLEANUP_TIMEOUT_MS, "connect network");
    } catch (error) {
      await closeRunNetwork(engine, runId).catch(() => undefined);
      return `the Run's network could not be joined by ${JSON.stringify(network.attach.container)} (${engineMessage(error)}); is that container running?`;
    }
  }
  if (network.onOpened === undefined) return undefined;
  try {
    // Bounded like every engine call: a peer that hangs must not hold the Run before it starts.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(() => reject(new Error(`its peer was not told of it within ${ENGINE_CLEANUP_TIMEOUT_MS} ms`)), ENGINE_CLEANUP_TIMEOUT_MS)),
    );
    await Promise.race([network.onOpened({ subnets }), late]).finally(() => clearTimeout(timer));
    return undefined;
  } catch (error) {
    await closeRunNetwork(engine, runId).catch(() => undefined);
    return `the Run's network ${JSON.stringify(name)} was made, but ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Removes the Run's network (its attached member is taken off, and keeps running). */
export async function closeRunNetwork(engine: Engine, runId: string): Promise<void> {
  await bounded(engine.removeNetwork(runNetworkName(runId)), ENGINE_CLEANUP_TIMEOUT_MS, "remove network");
}
