// Where the service may POST a webhook: a callback URL's host resolved (every address it has), and
// refused when any of them is not a public unicast address (src/address: loopback, private,
// link-local, CGNAT, multicast, reserved, IPv4 of those within IPv6...) unless the Operator allowed
// the deployment's own receivers. The address checked is the one connected to (pinnedLookup): no
// second lookup, so no DNS-rebinding window.

import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { whyNotPublic } from "../../address/index.js";
import { quote } from "../../errors/index.js";
import type { Caller } from "../caller.js";
import type { ServiceRunRequest } from "../runs/index.js";
import type { TenantStore } from "../tenancy/index.js";

/** How long a callback URL's host may take to resolve. */
const LOOKUP_TIMEOUT_MS = 10_000;

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
    const why = whyNotPublic(address);
    if (why !== undefined) return { ok: false, why: `resolves to ${address}, ${why}` };
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
