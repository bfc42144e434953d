// Where an allowlisted CONNECT may really go: the listed name is resolved here, in the proxy, and
// an address inside this host or its private networks is refused whatever name led to it, so a
// listed name that resolves to loopback, the metadata address or a container cannot open a tunnel
// back in. Only an address the Operator listed as that very address is let through on purpose.
// Invariant: the tunnel connects to the address that was checked, never to the name again.

import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

/** The ranges no listed name may resolve into, each with the rule a refusal names. */
const RULES: readonly { readonly rule: string; readonly v4: readonly string[]; readonly v6: readonly string[] }[] = [
  { rule: "a loopback address", v4: ["127.0.0.0/8"], v6: ["::1/128"] },
  { rule: "a link-local address (the cloud metadata address is one)", v4: ["169.254.0.0/16"], v6: ["fe80::/10"] },
  { rule: "a private address", v4: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"], v6: [] },
  { rule: "a unique-local address", v4: [], v6: ["fc00::/7"] },
  { rule: "an unspecified address", v4: ["0.0.0.0/8"], v6: ["::/128"] },
  { rule: "a multicast or reserved address", v4: ["224.0.0.0/4", "240.0.0.0/4"], v6: ["ff00::/8"] },
];

const LISTS = RULES.map(({ rule, v4, v6 }) => {
  const list = new BlockList();
  for (const range of v4) list.addSubnet(range.split("/")[0] ?? "", Number(range.split("/")[1]), "ipv4");
  for (const range of v6) list.addSubnet(range.split("/")[0] ?? "", Number(range.split("/")[1]), "ipv6");
  return { rule, list };
});

/** The rule an address falls under, or undefined for a public one. IPv4-mapped IPv6 is judged as its IPv4. */
export function forbiddenRule(address: string, own: ReadonlySet<string> = ownAddresses()): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const plain = mapped ?? address;
  const family = isIP(plain) === 6 ? "ipv6" : "ipv4";
  const rule = LISTS.find(({ list }) => list.check(plain, family))?.rule;
  return rule ?? (own.has(plain.toLowerCase()) ? "the proxy's own address" : undefined);
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
