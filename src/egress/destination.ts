// Where an allowlisted CONNECT may really go: the listed name is resolved here, in the proxy, and
// an address inside this host or its private networks is refused whatever name led to it, so a
// listed name that resolves to loopback, the metadata address or a container cannot open a tunnel
// back in. Only an address the Operator listed as that very address is let through on purpose.
// Invariant: the tunnel connects to the address that was checked, never to the name again.

import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { whyNotPublic } from "../address/index.js";

/**
 * Why a listed name may not reach this address (not a public unicast one, src/address; IPv6 that
 * carries IPv4 judged by it), or undefined. The proxy's own addresses are refused whatever they are.
 */
export function forbiddenRule(address: string, own: ReadonlySet<string> = ownAddresses()): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  return whyNotPublic(address) ?? (own.has((mapped ?? address).toLowerCase()) ? "the proxy's own address" : undefined);
}

/** This host's (the proxy's container's) own interface addresses, lower-case. */
export function ownAddresses(): ReadonlySet<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) own.add(entry.address.toLowerCase());
  }
  return own;
}

export type Destination = { readonly address: string; readonly family: 4 | 6 } | { readonly refused: string };

/**
 * The address a tunnel to the listed `host` connects to, or why none may. A host written as an
 * address is the Operator's on purpose and goes as it is; a name must resolve only to public addresses.
 */
export async function resolveDestination(host: string, resolve: typeof lookup = lookup): Promise<Destination> {
  const literal = isIP(host);
  if (literal !== 0) return { address: host, family: literal as 4 | 6 };
  let addresses: { address: string; family: number }[];
  try {
    addresses = await resolve(host, { all: true, verbatim: true });
  } catch (error) {
    return { refused: `${JSON.stringify(host)} does not resolve (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  if (addresses.length === 0) return { refused: `${JSON.stringify(host)} resolves to no address` };
  const own = ownAddresses();
  for (const { address } of addresses) {
    const rule = forbiddenRule(address, own);
    if (rule !== undefined) {
      return {
        refused: `${JSON.stringify(host)} resolves to ${address}, ${rule}, which a listed name may not reach; list that address itself if the tunnel is meant to go there`,
      };
    }
  }
  const first = addresses[0] as { address: string; family: number };
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
