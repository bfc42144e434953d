// A network of one Run's own: made before its container, joined by a running container the Run
// should reach (the egress proxy) under an alias, and removed after the Run whatever happened.
// Labelled like the Run's container, so a sweep removes what a crashed process left.

import { OWNER_LABEL, RUN_LABEL } from "../container/index.js";
import { describeEngineError, engineMessage, type Engine } from "../engine/index.js";
import { ENGINE_CLEANUP_TIMEOUT_MS } from "./limits.js";
import type { RunAddresses } from "./run-addresses.js";
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

/** How many subnets a Run tries when the engine refuses one as overlapping (another process's, or a network the Operator made). */
const SUBNET_TRIES = 8;

/**
 * What opening the Run's network came to: why it could not be made, or the subnet it holds from the
 * range (undefined: the engine's choice) and the address ranges the engine gave it.
 */
export type OpenedRunNetwork = { readonly refused: string } | { readonly subnet: string | undefined; readonly subnets: readonly string[] };

/** Makes the Run's network (a subnet of `addresses` when given), with its attached member, and tells its peer. */
export async function openRunNetwork(
  engine: Engine,
  runId: string,
  network: RunNetwork,
  labels: Readonly<Record<string, string>>,
  owner: string,
  addresses?: RunAddresses,
): Promise<OpenedRunNetwork> {
  const name = runNetworkName(runId);
  const made = await createWithin(engine, name, network, { ...labels, [RUN_LABEL]: runId, [OWNER_LABEL]: owner }, addresses);
  if ("refused" in made) return made;
  const refused = await joinAndTell(engine, runId, name, network, made.subnets);
  if (refused === undefined) return { subnet: made.subnet, subnets: made.subnets };
  if (made.subnet !== undefined) addresses?.give(made.subnet);
  return { refused };
}

type Made = { readonly subnets: readonly string[]; readonly subnet: string | undefined } | { readonly refused: string };

async function createWithin(
  engine: Engine,
  name: string,
  network: RunNetwork,
  labels: Readonly<Record<string, string>>,
  addresses: RunAddresses | undefined,
): Promise<Made> {
  if (addresses?.unusable !== undefined) return { refused: addresses.unusable };
  for (let tried = 0; ; tried++) {
    const subnet = addresses?.take();
    if (addresses !== undefined && subnet === undefined) {
      return { refused: `every subnet of the Run networks' range ${addresses.range} is in use; fewer Runs at once, or a larger range (runNetworkRange)` };
    }
    try {
      const { subnets } = await bounded(
        engine.createNetwork({ name, internal: network.kind === "internal", labels, ...(subnet === undefined ? {} : { subnet }) }),
        ENGINE_CLEANUP_TIMEOUT_MS,
        "create network",
      );
      return { subnets, subnet };
    } catch (error) {
      const message = engineMessage(error);
      const overlapping = /overlap/i.test(message);
      if (subnet !== undefined) overlapping ? addresses?.refuse(subnet) : addresses?.give(subnet);
      if (overlapping && subnet !== undefined && tried + 1 < SUBNET_TRIES) continue;
      const pools = /available, non-overlapping|address pool/i.test(message)
        ? "; the engine has no address range left for another network: fewer Runs at once, or more ranges in the daemon's default-address-pools"
        : overlapping && subnet !== undefined
          ? `; ${SUBNET_TRIES} subnets of ${addresses?.range} in a row overlap other networks of the engine: name a range nothing else uses (runNetworkRange)`
          : "";
      return { refused: `${describeEngineError("create network", error, name)}${pools}` };
    }
  }
}

/** Joins the attached member and tells the Run's peer; why not, or undefined. Removes the network when either fails. */
async function joinAndTell(engine: Engine, runId: string, name: string, network: RunNetwork, subnets: readonly string[]): Promise<string | undefined> {
  if (network.attach !== undefined) {
    try {
      await bounded(engine.connectNetwork(name, network.attach.container, [network.attach.alias]), ENGINE_CLEANUP_TIMEOUT_MS, "connect network");
    } catch (error) {
      await closeRunNetwork(engine, runId).catch(() => undefined);
      return `the Run's network could not be joined by ${JSON.stringify(network.attach.container)} (${engineMessage(error)}); is that container running?`;
    }
  }
  const untold = await tellPeer(network, subnets);
  if (untold === undefined) return undefined;
  await closeRunNetwork(engine, runId).catch(() => undefined);
  return `the Run's network ${JSON.stringify(name)} was made, but ${untold}`;
}

/**
 * Tells the Run's peer (the egress proxy) of the network the Run is on, bounded like every engine
 * call: a peer that hangs must not hold the Run before it starts. Why it could not be told, or undefined.
 */
export async function tellPeer(network: RunNetwork, subnets: readonly string[]): Promise<string | undefined> {
  if (network.onOpened === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`its peer was not told of it within ${ENGINE_CLEANUP_TIMEOUT_MS} ms`)), ENGINE_CLEANUP_TIMEOUT_MS)),
  );
  try {
    await Promise.race([network.onOpened({ subnets }), late]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/** Removes the network of the Run (or pool member) `runId` (its attached member is taken off, and keeps running). */
export async function closeRunNetwork(engine: Engine, runId: string): Promise<void> {
  await bounded(engine.removeNetwork(runNetworkName(runId)), ENGINE_CLEANUP_TIMEOUT_MS, "remove network");
}
