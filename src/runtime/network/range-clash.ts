// When the Run networks' range clashes with what this host or its engine holds, said as a
// degradation: a route of this host's into the default range (found at construction: no Run
// network can be made), or the engine refusing SUBNET_TRIES subnets of it in a row as overlapping
// its other networks, naming the route into them (an engine's bridge) when this host has one.
// Invariant: the clash is over only when a network takes a subnet of the range again.

import type { DegradationReport, Degradations } from "../degradations.js";
import {
  DEFAULT_RUN_NETWORK_RANGE,
  parseRange,
  routeInto,
  routesInto,
  ROUTE_TABLE,
  RUN_SUBNET_PREFIX,
  runAddressesOf,
  type RunAddresses,
} from "./run-addresses.js";

const FIX =
  "name a range no network of this host or its engine uses: serve's --run-network-range (AGENTCAGE_RUN_NETWORK_RANGE), or runNetworkRange, e.g. a /16 of 10.0.0.0/8 that `ip route` and `docker network inspect` do not show";

/**
 * For a caller that knows at its start that its Runs will need networks of their own (a runner's
 * network policy): the clash of the range `range` names (default DEFAULT_RUN_NETWORK_RANGE) with this
 * host's routes, or undefined: a route of its own interfaces into the default range, or a network
 * of the engine's that holds the whole range (one that holds a part only costs a Run a few tries,
 * and is said if the engine refuses SUBNET_TRIES subnets in a row). A range named that reaches into
 * a route of this host's own interfaces is refused at the runtime's construction instead.
 */
export function runNetworkRangeClash(range?: string, table = ROUTE_TABLE): DegradationReport | undefined {
  let addresses: RunAddresses;
  try {
    addresses = runAddressesOf(range, (one) => routeInto(one, table));
  } catch {
    return undefined;
  }
  const unusable = unusableRangeReport(addresses);
  if (unusable !== undefined) return unusable;
  const holding = routesOfRange(addresses.range, table).engines.find((route) => covers(route, addresses.range));
  if (holding === undefined) return undefined;
  return {
    kind: "run-network-range",
    reason: `the Run networks' range ${addresses.range} lies within this host's route to ${holding}: the engine refuses every network of it, so no Run that needs a network of its own can start`,
    fix: `${FIX}; or remove the network the route leads to`,
    stopsRuns: true,
  };
}

/**
 * What this host's routes say of the range (default DEFAULT_RUN_NETWORK_RANGE), for a check before
 * any Run: its own interfaces' routes into it (no Run network can be made there), and the engine's
 * networks into it other than a Run's own /28s (the engine refuses Run networks there).
 */
export function routesOfRange(range = DEFAULT_RUN_NETWORK_RANGE, table = ROUTE_TABLE): { readonly hosts: string[]; readonly engines: string[] } {
  const hosts = routesInto(range, table);
  // A /28 is a Run network of an agentcage's own (under the open policy), which the range is for.
  const engines = routesInto(range, table, true).filter((route) => !hosts.includes(route) && !route.includes(`/${RUN_SUBNET_PREFIX} via `));
  return { hosts, engines: engines.map((route) => `${route}${bridgeNote(route)}`) };
}

/** The clash of a range made unusable by a route of this host's; undefined when it is usable. */
export function unusableRangeReport(addresses: Pick<RunAddresses, "range" | "unusable" | "route">): DegradationReport | undefined {
  if (addresses.unusable === undefined) return undefined;
  return {
    kind: "run-network-range",
    reason: `the Run networks' range ${addresses.range} overlaps this host's route to ${addresses.route ?? "a network of its own"}: no Run that needs a network of its own can start`,
    fix: FIX,
    stopsRuns: true,
  };
}

/**
 * The engine refused each subnet of `tried` as overlapping another of its networks (`engineSaid`):
 * the route of this host's into them, the engine's bridges included, says which network holds them.
 */
export function refusedRangeReport(
  range: string,
  tried: readonly string[],
  engineSaid: string,
  routeOf: (subnet: string) => string | undefined = (subnet) => routeInto(subnet, ROUTE_TABLE, true),
): DegradationReport {
  const route = tried.map(routeOf).find((found) => found !== undefined);
  const first = tried[0] ?? range;
  const whose = route === undefined ? `the engine said: ${engineSaid}` : `this host's route to ${route}${bridgeNote(route)}`;
  return {
    kind: "run-network-range",
    reason: `the engine refused ${tried.length} subnets of the Run networks' range ${range} in a row, from ${first}, as overlapping its other networks (${whose}); a Run or pooled container that needs a network of its own cannot have one there`,
    fix: route === undefined ? FIX : `${FIX}; or remove the network the route leads to`,
    // A route that holds the whole range leaves no subnet of it for any Run.
    stopsRuns: route !== undefined && covers(route, range),
  };
}

/** `addresses` telling `degradations` of each clash and of its end, and of a range unusable from the start. */
export function reportingClashes(addresses: RunAddresses, degradations: Degradations): RunAddresses {
  const unusable = unusableRangeReport(addresses);
  return {
    ...addresses,
    clashed: (refused) => {
      const report = refused === undefined ? unusable : refusedRangeReport(addresses.range, refused.tried, refused.engineSaid);
      if (report !== undefined) degradations.raise(report);
    },
    fits: () => degradations.clear("run-network-range"),
  };
}

/** An engine's bridge is named for its network: `br-` and the first 12 hex of the network's id. */
function bridgeNote(route: string): string {
  const id = /via br-([0-9a-f]{12})$/.exec(route)?.[1];
  if (id !== undefined) return `, the engine's network ${id}`;
  return / via docker0$/.test(route) ? ", the engine's default bridge" : "";
}

/** Whether the route ("10.213.0.0/16 via eth0") holds every address of `range`. */
function covers(route: string, range: string): boolean {
  const destination = route.split(" ")[0] ?? "";
  try {
    const outer = parseWide(destination);
    const inner = parseRange(range);
    return outer.prefix <= inner.prefix && Math.floor(inner.base / 2 ** (32 - outer.prefix)) === Math.floor(outer.base / 2 ** (32 - outer.prefix));
  } catch {
    return false;
  }
}

/** A route's destination, which may be wider than /8 or narrower than /28, unlike a range. */
function parseWide(cidr: string): { readonly base: number; readonly prefix: number } {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (match === null) throw new Error(`${cidr} is not a CIDR`);
  const base = match.slice(1, 5).reduce((sum, octet) => sum * 256 + Number(octet), 0);
  return { base, prefix: Number(match[5]) };
}
