// A network of one Run's own: made before its container, joined by a running container the Run
// should reach (the egress proxy) under an alias, and removed after the Run whatever happened.
// Labelled like the Run's container, so a sweep removes what a crashed process left.

import { OWNER_LABEL, RUN_LABEL } from "../../container/index.js";
import { describeEngineError, engineMessage, type Engine } from "../../engine/index.js";
import type { EgressProxyPeer } from "../../kube/index.js";
import { describeBound, patientTimer, withinPatience, type HitBound } from "../../liveness/index.js";
import { ENGINE_CLEANUP_TIMEOUT_MS } from "../limits.js";
import type { RunAddresses } from "./run-addresses.js";
import { giveBack, waitTurn, type Turn } from "./network-line.js";
import { bounded } from "../stop.js";

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
  /**
   * On Kubernetes, where a Run has no network of its own: the egress proxy in the cluster (its Pods'
   * labels and port), which the Run's NetworkPolicy lets its Pod reach and nothing else. `attach`
   * means nothing there, and onOpened is told the Pod's own address instead of a network's ranges.
   */
  readonly podPeer?: EgressProxyPeer;
};

export const RUN_NETWORK_KINDS = ["internal", "open"] as const;

export function runNetworkName(runId: string): string {
  return `agentcage-net-${runId}`;
}

/**
 * How many subnets a Run tries when the engine refuses one as overlapping (another process's, or a
 * network the Operator made); as many refused in a row are a range that clashes (range-clash.ts).
 */
export const SUBNET_TRIES = 8;

/**
 * What opening the Run's network came to: why it could not be made, or the subnet it holds from the
 * range (undefined: the engine's choice) and the address ranges the engine gave it.
 */
export type OpenedRunNetwork = { readonly refused: string } | { readonly subnet: string | undefined; readonly subnets: readonly string[] };

/**
 * Makes the Run's network (a subnet of `addresses` when given), with its attached member, and tells
 * its peer. It first waits its turn in the engine's line (network-line.ts) for as long as `signal`
 * (the Run's deadline and cancel) lets it; a Run that ends meanwhile leaves the line, refused. A
 * pool member's network (`ahead`) lets any Run's go first.
 */
export async function openRunNetwork(
  engine: Engine,
  runId: string,
  network: RunNetwork,
  labels: Readonly<Record<string, string>>,
  owner: string,
  addresses?: RunAddresses,
  signal?: AbortSignal,
  ahead = false,
): Promise<OpenedRunNetwork> {
  const name = runNetworkName(runId);
  if (addresses?.unusable !== undefined) {
    addresses.clashed?.();
    return { refused: addresses.unusable };
  }
  let turn: Turn;
  try {
    turn = await waitTurn(engine, ahead ? "ahead" : "run", signal);
  } catch (error) {
    return { refused: `the Run ended while its network waited its turn for the engine (${engineMessage(error)})` };
  }
  // The turn is given back once the engine has answered the last call made in it, however late.
  let answering: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(call: Promise<T>): Promise<T> => {
    answering = call.catch(() => undefined);
    return call;
  };
  let made: Made;
  let joined: string | undefined;
  try {
    made = await createWithin(engine, runId, network, { ...labels, [RUN_LABEL]: runId, [OWNER_LABEL]: owner }, addresses, inTurn);
    if ("refused" in made) return made;
    joined = await join(engine, runId, network, made.subnet, addresses, inTurn);
  } finally {
    giveBack(turn, answering);
  }
  if (joined !== undefined) return { refused: joined };
  const untold = await tellPeer(network, made.subnets);
  if (untold === undefined) return { subnet: made.subnet, subnets: made.subnets };
  await closeRunNetwork(engine, runId, made.subnet, addresses).catch(() => undefined);
  return { refused: `the Run's network ${JSON.stringify(name)} was made, but ${untold}` };
}

type Made = { readonly subnets: readonly string[]; readonly subnet: string | undefined } | { readonly refused: string };

async function createWithin(
  engine: Engine,
  runId: string,
  network: RunNetwork,
  labels: Readonly<Record<string, string>>,
  addresses: RunAddresses | undefined,
  inTurn: <T>(call: Promise<T>) => Promise<T>,
): Promise<Made> {
  const name = runNetworkName(runId);
  // The subnets the engine refused as overlapping, in a row.
  const overlapped: string[] = [];
  for (let tried = 0; ; tried++) {
    const subnet = addresses?.take();
    if (addresses !== undefined && subnet === undefined) {
      return { refused: `every subnet of the Run networks' range ${addresses.range} is in use; fewer Runs at once, or a larger range (runNetworkRange)` };
    }
    const creating = inTurn(engine.createNetwork({ name, internal: network.kind === "internal", labels, ...(subnet === undefined ? {} : { subnet }) }));
    try {
      const answer = await answerOf(creating);
      if ("value" in answer) {
        if (subnet !== undefined) addresses?.fits?.();
        return { subnets: answer.value.subnets, subnet };
      }
      // The engine may still make it: once it exists it is removed, and its subnet is held till then.
      void creating.then(
        () => closeRunNetwork(engine, runId, subnet, addresses).catch(() => undefined),
        () => subnet !== undefined && addresses?.give(subnet),
      );
      return { refused: `the engine did not answer create network within ${describeBound(answer.late)} (${name})` };
    } catch (error) {
      const message = engineMessage(error);
      const overlapping = /overlap/i.test(message);
      if (subnet !== undefined) overlapping ? addresses?.refuse(subnet) : addresses?.give(subnet);
      if (overlapping && subnet !== undefined) overlapped.push(subnet);
      if (overlapping && subnet !== undefined && tried + 1 < SUBNET_TRIES) continue;
      if (overlapped.length === SUBNET_TRIES) addresses?.clashed?.({ tried: overlapped, engineSaid: message });
      const pools = /available, non-overlapping|address pool/i.test(message)
        ? "; the engine has no address range left for another network: fewer Runs at once, or more ranges in the daemon's default-address-pools"
        : overlapping && subnet !== undefined
          ? `; ${SUBNET_TRIES} subnets of ${addresses?.range} in a row overlap other networks of the engine: name a range nothing else uses (runNetworkRange)`
          : "";
      return { refused: `${describeEngineError("create network", error, name)}${pools}` };
    }
  }
}

/** Joins the attached member to the network; why not, or undefined. The network is removed when it cannot be. */
async function join(
  engine: Engine,
  runId: string,
  network: RunNetwork,
  subnet: string | undefined,
  addresses: RunAddresses | undefined,
  inTurn: <T>(call: Promise<T>) => Promise<T>,
): Promise<string | undefined> {
  if (network.attach === undefined) return undefined;
  const name = runNetworkName(runId);
  const why = (message: string) =>
    `the Run's network could not be joined by ${JSON.stringify(network.attach?.container)} (${message}); is that container running?`;
  const connecting = inTurn(engine.connectNetwork(name, network.attach.container, [network.attach.alias]));
  try {
    const answer = await answerOf(connecting);
    if ("value" in answer) return undefined;
    // Removing the network under a join still under way races it: the removal waits for its answer.
    void connecting.finally(() => closeRunNetwork(engine, runId, subnet, addresses).catch(() => undefined)).catch(() => undefined);
    return why(`the engine did not answer connect network within ${describeBound(answer.late)}`);
  } catch (error) {
    await removeNow(engine, name, subnet, addresses, inTurn).catch(() => undefined);
    return why(engineMessage(error));
  }
}

/**
 * The engine's answer to `call`, or the bound it was late by when it gave none within ENGINE_CLEANUP_TIMEOUT_MS
 * stretched by the load (the call is still under way); rejects with its refusal.
 */
async function answerOf<T>(call: Promise<T>): Promise<{ readonly value: T } | { readonly late: HitBound }> {
  let timer: { readonly cancel: () => void } | undefined;
  const late = new Promise<{ readonly late: HitBound }>((resolve) => (timer = patientTimer(ENGINE_CLEANUP_TIMEOUT_MS, (hit) => resolve({ late: hit }))));
  try {
    return await Promise.race([call.then((value) => ({ value })), late]);
  } finally {
    timer?.cancel();
  }
}

/**
 * Tells the Run's peer (the egress proxy) of the network the Run is on, bounded like every engine
 * call, stretched by the machine's load: a peer that hangs must not hold the Run before it starts,
 * and one that is only slow on a busy host must not lose it. Why it could not be told, or undefined.
 */
export async function tellPeer(network: RunNetwork, subnets: readonly string[]): Promise<string | undefined> {
  if (network.onOpened === undefined) return undefined;
  try {
    await withinPatience(
      Promise.resolve(network.onOpened({ subnets })),
      ENGINE_CLEANUP_TIMEOUT_MS,
      (hit) => new Error(`its peer was not told of it within ${describeBound(hit)} (ENGINE_CLEANUP_TIMEOUT_MS)`),
    );
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Removes the network of the Run (or pool member) `runId` (its attached member is taken off, and
 * keeps running) once it is its turn in the engine's line; then its subnet is given back, or, when it
 * could not be removed, kept from the next Runs a while (the sweep removes it). Rejects with why not.
 */
export async function closeRunNetwork(engine: Engine, runId: string, subnet?: string, addresses?: RunAddresses): Promise<void> {
  const turn = await waitTurn(engine, "removal");
  await removeNow(engine, runNetworkName(runId), subnet, addresses, (call) => {
    giveBack(turn, call);
    return call;
  });
}

/** Removes the network now (the caller holds a turn), then gives its subnet back or keeps it from the next Runs a while. */
async function removeNow(
  engine: Engine,
  name: string,
  subnet: string | undefined,
  addresses: RunAddresses | undefined,
  inTurn: <T>(call: Promise<T>) => Promise<T>,
): Promise<void> {
  try {
    await bounded(inTurn(engine.removeNetwork(name)), ENGINE_CLEANUP_TIMEOUT_MS, "remove network");
  } catch (error) {
    if (subnet !== undefined) addresses?.refuse(subnet);
    throw error;
  }
  if (subnet !== undefined) addresses?.give(subnet);
}
