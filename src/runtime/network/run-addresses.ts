// Where each Run's own network takes its addresses: small subnets (/28, room for the agent, the
// egress proxy and a few more) of one range the Operator names, handed out here, not from the
// engine's default address pools, which hold only about 30 networks at once. A subnet another
// process or network holds already (the engine refuses it as overlapping) is left alone a while.
// A clash with this host's routes or the engine's networks is told to `clashed` (range-clash.ts).
// Invariant: a subnet is held by at most one of this process's Runs at a time.

import { readFileSync } from "node:fs";
import { AgentContainerError } from "../../container/index.js";
import { describeValue } from "../misuse.js";

/** The range Run networks take their subnets from unless the Operator names another: 4,096 networks of 14 addresses. */
export const DEFAULT_RUN_NETWORK_RANGE = "10.213.0.0/16";
/** Each Run network's size: 16 addresses, 14 usable (the network, broadcast and gateway take the rest). */
export const RUN_SUBNET_PREFIX = 28;
/** How long a subnet the engine refused as overlapping is skipped before it is tried again. */
export const REFUSED_SUBNET_QUARANTINE_MS = 60_000;
/** This host's IPv4 routes, as Linux lists them. */
export const ROUTE_TABLE = "/proc/net/route";

export type RunAddresses = {
  readonly range: string;
  /** Why no Run network may take a subnet of it (the default range reaches into a route of this host's), or undefined. */
  readonly unusable?: string;
  /** With `unusable`: the route of this host's it reaches into, as "10.213.64.0/24 via wg0". */
  readonly route?: string;
  /** A free subnet, or undefined when every one is held. */
  readonly take: () => string | undefined;
  /** The subnet's network is gone: it may be handed out again. */
  readonly give: (subnet: string) => void;
  /** The engine refused the subnet as overlapping another network: skipped for REFUSED_SUBNET_QUARANTINE_MS. */
  readonly refuse: (subnet: string) => void;
  /**
   * Told when a Run network could not have a subnet of the range: it is `unusable` (no argument), or
   * the engine refused every subnet `tried` in a row as overlapping its other networks. Default: nobody.
   */
  readonly clashed?: (refused?: { readonly tried: readonly string[]; readonly engineSaid: string }) => void;
  /** Told when a network took a subnet of the range: a clash told before is over. Default: nobody. */
  readonly fits?: () => void;
};

type Range = { readonly base: number; readonly prefix: number };

/** The range as its first address and its prefix; throws naming the option and the value when it is not an IPv4 CIDR that holds a /28. */
export function parseRange(range: string, option = "runNetworkRange"): Range {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(range);
  const octets = match?.slice(1, 5).map(Number) ?? [];
  const prefix = Number(match?.[5]);
  if (match === null || octets.some((octet) => octet > 255) || prefix > RUN_SUBNET_PREFIX || prefix < 8) {
    throw new AgentContainerError(
      `${option} ${JSON.stringify(range)} is not an IPv4 range of /8 to /${RUN_SUBNET_PREFIX}; write one no network of this host uses, e.g. ${DEFAULT_RUN_NETWORK_RANGE}`,
    );
  }
  const address = octets.reduce((sum, octet) => sum * 256 + octet, 0);
  const base = address - (address % 2 ** (32 - prefix));
  if (base !== address) {
    throw new AgentContainerError(`${option} ${JSON.stringify(range)} has bits set past its /${prefix}; write ${dotted(base)}/${prefix}`);
  }
  return { base, prefix };
}

export function createRunAddresses(range: string = DEFAULT_RUN_NETWORK_RANGE, now: () => number = Date.now): RunAddresses {
  const { base, prefix } = parseRange(range);
  const count = 2 ** (RUN_SUBNET_PREFIX - prefix);
  const size = 2 ** (32 - RUN_SUBNET_PREFIX);
  const held = new Set<number>();
  const refusedUntil = new Map<number, number>();
  // Each process starts at its own place, so two on one engine rarely reach for the same subnet first.
  let next = Math.floor(Math.random() * count);
  const indexOf = (subnet: string) => (parseRange(subnet, "subnet").base - base) / size;
  return {
    range,
    take: () => {
      const at = now();
      for (let tried = 0; tried < count; tried++) {
        const index = (next + tried) % count;
        if (held.has(index) || (refusedUntil.get(index) ?? 0) > at) continue;
        refusedUntil.delete(index);
        held.add(index);
        // The one after it next: a subnet just given back is the last to be handed out again.
        next = (index + 1) % count;
        return `${dotted(base + index * size)}/${RUN_SUBNET_PREFIX}`;
      }
      return undefined;
    },
    give: (subnet) => void held.delete(indexOf(subnet)),
    refuse: (subnet) => {
      const index = indexOf(subnet);
      held.delete(index);
      refusedUntil.set(index, now() + REFUSED_SUBNET_QUARANTINE_MS);
    },
  };
}

/** The Run networks' addresses, from a range that is a CIDR no route of this host's own interfaces reaches into. */
export function runAddressesOf(range: unknown, routeOf: (range: string) => string | undefined = routeInto): RunAddresses {
  if (range !== undefined && typeof range !== "string") {
    throw new AgentContainerError(
      `runNetworkRange ${describeValue(range)} is not a string; write an IPv4 range such as ${DEFAULT_RUN_NETWORK_RANGE}, or leave it out`,
    );
  }
  const addresses = createRunAddresses(range ?? DEFAULT_RUN_NETWORK_RANGE);
  const route = routeOf(addresses.range);
  if (route === undefined) return addresses;
  const unusable = `runNetworkRange ${JSON.stringify(addresses.range)} overlaps this host's route to ${route}; name a range no network of this host uses (runNetworkRange, or serve's --run-network-range)`;
  // A range named is refused now; the default only once a Run needs a network of its own, so a
  // runtime that never makes one (policy none, networks named by hand) is not refused for it.
  if (range !== undefined) throw new AgentContainerError(unusable);
  return { ...addresses, unusable, route };
}

/**
 * A route of this host's own interfaces (not the engine's bridges: those are its networks, which
 * the engine itself refuses to overlap; with `bridges`, those too) into the range, as
 * "10.213.0.0/16 via eth0"; undefined when none is, or the host has no /proc/net/route to read.
 */
export function routeInto(range: string, table = ROUTE_TABLE, bridges = false): string | undefined {
  return routesInto(range, table, bridges)[0];
}

/** Every route into the range, as routeInto says the first; none when the table cannot be read. */
export function routesInto(range: string, table = ROUTE_TABLE, bridges = false): string[] {
  let text: string;
  try {
    text = readFileSync(table, "utf8");
  } catch {
    return [];
  }
  const { base, prefix } = parseRange(range);
  const found: string[] = [];
  for (const line of text.split("\n").slice(1)) {
    const [iface = "", destination = "", , , , , , mask = ""] = line.trim().split(/\s+/);
    if (iface === "" || (!bridges && /^(br-|docker|veth)/.test(iface))) continue;
    const routeBase = littleEndian(destination);
    const routeMask = littleEndian(mask);
    // The default route (mask 0) reaches everything; it is not a network of the host's.
    if (routeMask === 0) continue;
    const routePrefix = 32 - Math.log2(2 ** 32 - routeMask);
    const shorter = Math.min(prefix, routePrefix);
    if (Math.floor(base / 2 ** (32 - shorter)) === Math.floor(routeBase / 2 ** (32 - shorter))) found.push(`${dotted(routeBase)}/${routePrefix} via ${iface}`);
  }
  return found;
}

/** /proc/net/route's hex, which holds an address's bytes in memory order (little-endian here). */
function littleEndian(hex: string): number {
  const value = Number.parseInt(hex, 16);
  return ((value & 0xff) * 2 ** 24 + ((value >>> 8) & 0xff) * 2 ** 16 + ((value >>> 16) & 0xff) * 2 ** 8 + ((value >>> 24) & 0xff)) >>> 0;
}

function dotted(address: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join(".");
}
