// Where the service may POST a webhook: a callback URL's host resolved (every address it has), and
// refused when any of them is not a public unicast address (loopback, private, link-local, CGNAT,
// multicast, reserved...) unless the Operator allowed the deployment's own receivers. The address
// checked is the one connected to (pinnedLookup): no second lookup, so no DNS-rebinding window.

import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { isIPv4, isIPv6, type LookupFunction } from "node:net";
import { quote } from "../errors/index.js";
import type { Caller } from "./caller.js";
import type { ServiceRunRequest } from "./run-service-options.js";
import type { TenantStore } from "./tenants.js";

/** How long a callback URL's host may take to resolve. */
const LOOKUP_TIMEOUT_MS = 10_000;

type Range = { readonly bytes: readonly number[]; readonly bits: number; readonly kind: string };

const range = (cidr: string, kind: string): Range => {
  const [network = "", bits = ""] = cidr.split("/");
  const bytes = isIPv4(network) ? ipv4Bytes(network) : ipv6Bytes(network);
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

const IPV6_RANGES: readonly Range[] = [
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  // IPv4-compatible (deprecated); IPv4-mapped ones are judged by their IPv4 address below.
  range("::/96", "reserved (IPv4-compatible)"),
  range("64:ff9b:1::/48", "private (local-use NAT64)"),
  range("100::/64", "reserved (discard)"),
  range("2001:db8::/32", "documentation"),
  range("fc00::/7", "private (unique local)"),
  range("fe80::/10", "link-local"),
  range("fec0::/10", "private (site-local)"),
  range("ff00::/8", "multicast"),
];

/** What kind of address this is when it is not a public unicast one ("loopback", "private", ...); undefined when it is public. */
export function addressClass(address: string): string | undefined {
  const v4 = ipv4Bytes(address);
  if (v4 !== undefined) return within(v4, IPV4_RANGES);
  const v6 = ipv6Bytes(address);
  if (v6 === undefined) return "not an IP address";
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) return within(embedded, IPV4_RANGES);
  return within(v6, IPV6_RANGES);
}

export type CheckedCallback =
  | { readonly ok: true; readonly addresses: readonly LookupAddress[] }
  /** Why not, as the end of a sentence that starts with the URL: "resolves to 10.0.0.1, a private address". */
  | { readonly ok: false; readonly why: string };

export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

const resolveAll: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A callback URL's host resolved, every address checked (unless `allowPrivate`): the addresses to
 * connect to, or why none may be. A host that does not resolve is refused too.
 */
export async function checkCallbackUrl(url: string, allowPrivate: boolean, resolve: Resolver = resolveAll): Promise<CheckedCallback> {
  let hostname: string;
  try {
    // [::1] as the URL writes it; ::1 as an address.
    hostname = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return { ok: false, why: "is not a URL" };
  }
  let addresses: readonly LookupAddress[];
  try {
    addresses = await withTimeout(resolve(hostname), LOOKUP_TIMEOUT_MS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return { ok: false, why: `names a host that does not resolve (${code})` };
  }
  if (addresses.length === 0) return { ok: false, why: "names a host that resolves to no address" };
  if (allowPrivate) return { ok: true, addresses };
  for (const { address } of addresses) {
    const kind = addressClass(address);
    if (kind !== undefined) return { ok: false, why: `resolves to ${address}, ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} address` };
  }
  return { ok: true, addresses };
}

/** A `lookup` for http.request that answers only the addresses already checked, never asking DNS again. */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const [first] = addresses;
    if (first === undefined) return callback(Object.assign(new Error("no checked address"), { code: "ENOTFOUND" }), "");
    if (options.all === true) return callback(null, [...addresses]);
    return callback(null, first.address, first.family);
  };
}

function within(bytes: readonly number[], ranges: readonly Range[]): string | undefined {
  return ranges.find((candidate) => candidate.bytes.length === bytes.length && prefixMatches(bytes, candidate))?.kind;
}

function prefixMatches(bytes: readonly number[], candidate: Range): boolean {
  for (let bit = 0; bit < candidate.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((candidate.bytes[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
}

/** The IPv4 address an IPv6 one stands for and reaches: IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16). */
function embeddedIPv4(bytes: readonly number[]): number[] | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12, 16);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return bytes.slice(12, 16);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return undefined;
}

function ipv4Bytes(text: string): number[] | undefined {
  return isIPv4(text) ? text.split(".").map(Number) : undefined;
}

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

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("lookup timed out"), { code: "ETIMEOUT" })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The submit's check of where a Run's webhooks would go (its own callbackUrl, or its tenant's):
 * what to do instead when they may not go there; undefined when they may, or when there is none.
 */
export function callbackRefusal(tenants: TenantStore, allowPrivate: boolean, resolve?: Resolver) {
  return async (request: ServiceRunRequest, owner: Caller): Promise<string | undefined> => {
    const own = request.callbackUrl;
    const url = own ?? tenants.get(owner.tenant)?.callbackUrl;
    if (url === undefined) return undefined;
    const checked = await checkCallbackUrl(url, allowPrivate, resolve);
    if (checked.ok) return undefined;
    const named = own === undefined ? `callbackUrl (your tenant's default) ${quote(url)}` : `callbackUrl ${quote(url)}`;
    const instead =
      own === undefined
        ? "give a callbackUrl of your own in the request, or ask the Operator to change your tenant's (PUT /v1/tenants/{name})"
        : "give the address of a receiver the service can reach";
    if (checked.why.startsWith("resolves to")) {
      return `${named} ${checked.why}, and this service posts webhooks to public addresses only; ${instead}, or ask the Operator to allow the deployment's own receivers (agentcage serve --allow-private-callbacks)`;
    }
    return `${named} ${checked.why}; ${instead}`;
  };
}
