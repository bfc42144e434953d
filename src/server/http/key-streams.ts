// Every stream a tenant's key holds open (a Run's events, the events feed, an A2A stream, an MCP
// answer), by the key's prefix, so a key that stops being one ends them at once: revoked (the keys'
// route tells it) or past its expiry (one timer per key that holds a stream). Invariant: a stream
// is held from before its first byte until it ends, and is never begun for a key that is no longer
// one, so no byte reaches a key after the moment its next request would be refused.

import { unauthorizedMessage } from "./auth.js";
import { OPERATOR_KEY, type Caller } from "../caller.js";
import type { KeyStore } from "../tenancy/index.js";
import { errorBody } from "./schemas.js";

/** Why a key's streams end: the two ways a key that was one stops being one. */
export type KeyEnd = "revoked" | "expired";

export type KeyStreams = {
  /**
   * Holds a stream of `caller`'s key until it ends on its own (call what this answers) or `end` is
   * told why the key may no longer read it. When the key is no longer one now (revoked or expired
   * since the door let the request in), answers why instead, and the stream must not begin.
   * The Operator's start-up token is neither revoked nor expires: its streams are not held.
   */
  readonly hold: (caller: Caller, end: (why: KeyEnd) => void) => (() => void) | KeyEnd;
  /** Ends every stream the key holds: it was revoked. Answers how many there were. */
  readonly revoked: (prefix: string) => number;
  /** Stops the expiry timers: the service is closing. */
  readonly close: () => void;
};

/**
 * JSON-RPC's first implementation-defined server error, which an A2A or MCP stream ends with when its
 * key stopped being one: neither protocol gives the code a meaning of its own (MCP's SDK calls it
 * ConnectionClosed), and the message is the door's.
 */
export const KEY_ENDED_RPC_CODE = -32000;

/** The last event of a Server-Sent Events stream whose key stopped being one: what the door answers its next request (401). */
export function keyEndedEvent(why: KeyEnd): string {
  return `event: unauthorized\ndata: ${JSON.stringify(errorBody("unauthorized", unauthorizedMessage(why)))}\n\n`;
}

/** The JSON-RPC error an A2A or MCP request is answered with when its key stopped being one while it was open. */
export function keyEndedRpcError(why: KeyEnd): { readonly code: number; readonly message: string; readonly data: { readonly error: "unauthorized" } } {
  return { code: KEY_ENDED_RPC_CODE, message: unauthorizedMessage(why), data: { error: "unauthorized" } };
}

/** The longest wait a Node timer keeps (about 24.8 days); a key that expires later is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createKeyStreams(keys: Pick<KeyStore, "get">): KeyStreams {
  const held = new Map<string, Set<(why: KeyEnd) => void>>();
  const timers = new Map<string, NodeJS.Timeout>();
  const endAll = (prefix: string, why: KeyEnd): number => {
    // Each end lets go of its own hold as it runs: the set is read once, before any of them.
    const ends = [...(held.get(prefix) ?? [])];
    held.delete(prefix);
    clearTimeout(timers.get(prefix));
    timers.delete(prefix);
    for (const end of ends) end(why);
    return ends.length;
  };
  const expiryOf = (prefix: string): number | undefined => {
    const expiresAt = keys.get(prefix)?.expiresAt;
    return expiresAt === undefined ? undefined : Date.parse(expiresAt);
  };
  const standing = (prefix: string): KeyEnd | undefined => {
    const record = keys.get(prefix);
    if (record === undefined || record.revokedAt !== undefined) return "revoked";
    const expiry = expiryOf(prefix);
    return expiry !== undefined && expiry <= Date.now() ? "expired" : undefined;
  };
  const watchExpiry = (prefix: string, expiry: number) => {
    if (timers.has(prefix)) return;
    const timer = setTimeout(
      () => {
        timers.delete(prefix);
        if (expiry <= Date.now()) endAll(prefix, "expired");
        else if (held.has(prefix)) watchExpiry(prefix, expiry);
      },
      Math.min(Math.max(0, expiry - Date.now()), MAX_TIMER_MS),
    );
    timers.set(prefix, timer.unref());
  };
  return {
    hold: (caller, end) => {
      const prefix = caller.key;
      if (prefix === OPERATOR_KEY) return () => undefined;
      const refused = standing(prefix);
      if (refused !== undefined) return refused;
      const ends = held.get(prefix) ?? new Set();
      ends.add(end);
      held.set(prefix, ends);
      const expiry = expiryOf(prefix);
      if (expiry !== undefined) watchExpiry(prefix, expiry);
      return () => {
        ends.delete(end);
        if (ends.size > 0 || held.get(prefix) !== ends) return;
        held.delete(prefix);
        clearTimeout(timers.get(prefix));
        timers.delete(prefix);
      };
    },
    revoked: (prefix) => endAll(prefix, "revoked"),
    close: () => {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
