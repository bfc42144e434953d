// Whether an IP address is a public unicast one: the one judgement that the webhook check and the
// egress proxy's allowlist destination check share. Invariant: an IPv6 address that carries an IPv4
// one (mapped, translated, compatible, NAT64, 6to4) is judged by that IPv4 address, and a form whose
// far end the address cannot tell (Teredo, local-use NAT64) is refused whatever it carries.

import { isIPv4, isIPv6 } from "node:net";

type Range = { readonly bytes: readonly number[]; readonly bits: number; readonly kind: string };

const range = (cidr: string, kind = ""): Range => {
  const [network = "", bits = ""] = cidr.split("/");
  const bytes = ipv4Bytes(network) ?? ipv6Bytes(network);
  if (bytes === undefined) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits), kind };
};

// Not reachable on the public internet, or not one host: each with the word a refusal says.
const IPV4_RANGES: readonly Range[] = [
  range("0.0.0.0/8", "unspecified (this-network)"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "shared (carrier-grade NAT)"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "reserved (IETF protocol assignments)"),
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "reserved (6to4 relay)"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved"),
];

// IPv6's own unspecified and loopback, judged first: both sit inside ::/96.
const IPV6_OWN: readonly Range[] = [range("::/128", "unspecified"), range("::1/128", "loopback")];

// The IPv6 forms that carry an IPv4 address, and the byte it starts at.
const CARRIERS: readonly { readonly prefix: Range; readonly form: string; readonly at: number }[] = [
  { prefix: range("::ffff:0:0/96"), form: "IPv4-mapped", at: 12 },
  { prefix: range("::ffff:0:0:0/96"), form: "IPv4-translated", at: 12 },
  { prefix: range("64:ff9b::/96"), form: "NAT64", at: 12 },
  { prefix: range("2002::/16"), form: "6to4", at: 2 },
  { prefix: range("::/96"), form: "IPv4-compatible", at: 12 },
];

const IPV6_RANGES: readonly Range[] = [
  // Its IPv4 address sits where the site's own translator puts it: only that site can tell.
  range("64:ff9b:1::/48", "private (local-use NAT64)"),
  // A relay carries it to a client's NAT, behind which any host may answer; nothing needs it now.
  range("2001::/32", "Teredo tunnel"),
  range("2001::/23", "reserved (IETF protocol assignments)"),
  range("100::/64", "reserved (discard)"),
  range("2001:db8::/32", "documentation"),
  range("3fff::/20", "documentation"),
  range("fc00::/7", "private (unique local)"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "private (site-local)"),
  range("ff00::/8", "multicast"),
];

/**
 * Why `address` is not a public unicast address, as the end of a sentence ("a loopback address",
 * "a private address (IPv4-translated 10.0.0.1)"); undefined when it is one.
 */
export function whyNotPublic(address: string): string | undefined {
  const v4 = ipv4Bytes(address);
  if (v4 !== undefined) return described(within(v4, IPV4_RANGES));
  const v6 = ipv6Bytes(address);
  if (v6 === undefined) return "not an IP address";
  const own = within(v6, IPV6_OWN);
  if (own !== undefined) return described(own);
  const carrier = CARRIERS.find(({ prefix }) => prefixMatches(v6, prefix));
  if (carrier === undefined) return described(within(v6, IPV6_RANGES));
  const carried = v6.slice(carrier.at, carrier.at + 4);
  const kind = within(carried, IPV4_RANGES);
  if (kind !== undefined) return `${described(kind)} (${carrier.form} ${carried.join(".")})`;
  // Deprecated, and routed by nothing but old tunnels, whatever IPv4 address it carries.
  return carrier.form === "IPv4-compatible" ? described("reserved (IPv4-compatible, deprecated)") : undefined;
}

function described(kind: string): string;
function described(kind: string | undefined): string | undefined;
function described(kind: string | undefined): string | undefined {
  return kind === undefined ? undefined : `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address`;
}

function within(bytes: readonly number[], ranges: readonly Range[]): string | undefined {
  return ranges.find((candidate) => candidate.bytes.length === bytes.length && prefixMatches(bytes, candidate))?.kind;
}

function prefixMatches(bytes: readonly number[], candidate: Range): boolean {
  if (candidate.bytes.length !== bytes.length) return false;
  for (let bit = 0; bit < candidate.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((candidate.bytes[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(text: string): number[] | undefined {
  return isIPv4(text) ? text.split(".").map(Number) : undefined;
}

// Byte by byte, as the address is on the wire: "::a.b.c.d" is IPv4-compatible (::/96), not IPv4-mapped,
// whatever some parsers make of it (a resolver prints IPv4-compatible answers so).
function ipv6Bytes(text: string): number[] | undefined {
  // A zone (fe80::1%eth0) says which interface, not which address.
  const address = text.split("%")[0] ?? "";
  if (!isIPv6(address)) return undefined;
  let groups = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (dotted !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(dotted) ?? [];
    groups = `${address.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = groups.split("::");
  const words = (part: string) => (part === "" ? [] : part.split(":").map((word) => Number.parseInt(word, 16)));
  const before = words(head);
  const after = tail === undefined ? [] : words(tail);
  const all = [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  return all.flatMap((word) => [word >> 8, word & 0xff]);
}
