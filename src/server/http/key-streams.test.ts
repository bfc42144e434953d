// The registry of the streams keys hold open, over a table of keys and fake time: a revoked key's
// streams end and no other key's; a key ends its streams when its expiry passes and not before, a
// month away too (past what one Node timer can wait); a key no longer one holds nothing; a stream
// that ended on its own is not ended again.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Caller } from "../caller.js";
import { OPERATOR } from "../caller.js";
import type { KeyRecord } from "../tenancy/index.js";
import { createKeyStreams, keyEndedEvent, keyEndedRpcError, type KeyEnd } from "./key-streams.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const keys = new Map<string, KeyRecord>();
const key = (prefix: string, extra: Partial<KeyRecord> = {}): Caller => {
  keys.set(prefix, { prefix, tenant: "a", scope: "runs:read", createdAt: new Date().toISOString(), createdBy: "operator-token", ...extra });
  return { tenant: "a", scope: "runs:read", key: prefix };
};
const streams = () => createKeyStreams({ get: (prefix) => keys.get(prefix) });
/** A stream's end, and what it was told. */
const stream = () => {
  const told: KeyEnd[] = [];
  return { told, end: (why: KeyEnd) => void told.push(why) };
};

beforeEach(() => {
  keys.clear();
  vi.useFakeTimers({ now: Date.parse("2027-01-01T00:00:00Z") });
});
afterEach(() => vi.useRealTimers());

describe("the streams keys hold open", () => {
  it("ends every stream of a revoked key, once, and none of another key's", () => {
    const held = streams();
    const [one, two, three, other] = [stream(), stream(), stream(), stream()];
    const a = key("aaaaaaaaaaaa");
    // As the routes' streams do: each lets go of its hold as it ends.
    const releases: Array<() => void> = [];
    for (const { end } of [one, two, three])
      releases.push(
        held.hold(a, (why) => {
          end(why);
          for (const release of releases) release();
        }) as () => void,
      );
    held.hold(key("bbbbbbbbbbbb"), other.end);
    expect(held.revoked("aaaaaaaaaaaa")).toBe(3);
    expect([one.told, two.told, three.told, other.told]).toEqual([["revoked"], ["revoked"], ["revoked"], []]);
    expect(held.revoked("aaaaaaaaaaaa")).toBe(0);
    expect(one.told).toEqual(["revoked"]);
    expect(held.revoked("bbbbbbbbbbbb")).toBe(1);
  });

  it("does not end a stream that ended on its own", () => {
    const held = streams();
    const done = stream();
    const release = held.hold(key("aaaaaaaaaaaa"), done.end);
    expect(typeof release).toBe("function");
    (release as () => void)();
    expect(held.revoked("aaaaaaaaaaaa")).toBe(0);
    expect(done.told).toEqual([]);
  });

  it("holds nothing for a key revoked or expired since the door let its request in: it answers why", () => {
    const held = streams();
    const revoked = key("aaaaaaaaaaaa", { revokedAt: new Date().toISOString() });
    const expired = key("bbbbbbbbbbbb", { expiresAt: new Date(Date.now()).toISOString() });
    expect(held.hold(revoked, stream().end)).toBe("revoked");
    expect(held.hold(expired, stream().end)).toBe("expired");
    expect(held.hold({ tenant: "a", scope: "runs:read", key: "cccccccccccc" }, stream().end)).toBe("revoked");
  });

  it("ends a key's streams when its expiry passes, and not a millisecond before", () => {
    const held = streams();
    const soon = stream();
    const later = stream();
    held.hold(key("aaaaaaaaaaaa", { expiresAt: new Date(Date.now() + 5_000).toISOString() }), soon.end);
    held.hold(key("bbbbbbbbbbbb", { expiresAt: new Date(Date.now() + 10_000).toISOString() }), later.end);
    vi.advanceTimersByTime(4_999);
    expect(soon.told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(soon.told).toEqual(["expired"]);
    expect(later.told).toEqual([]);
    vi.advanceTimersByTime(5_000);
    expect(later.told).toEqual(["expired"]);
  });

  it("ends the streams of a key that expires in a month, longer than one timer waits, at that time", () => {
    const held = streams();
    const month = stream();
    const expiresAt = Date.now() + 30 * DAY_MS;
    held.hold(key("aaaaaaaaaaaa", { expiresAt: new Date(expiresAt).toISOString() }), month.end);
    vi.advanceTimersByTime(30 * DAY_MS - 1);
    expect(month.told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(month.told).toEqual(["expired"]);
  });

  it("keeps no timer for a key whose streams all ended, and none for the Operator's token", () => {
    const held = streams();
    const release = held.hold(key("aaaaaaaaaaaa", { expiresAt: new Date(Date.now() + 5_000).toISOString() }), stream().end) as () => void;
    expect(vi.getTimerCount()).toBe(1);
    release();
    expect(vi.getTimerCount()).toBe(0);
    const operator = stream();
    expect(typeof held.hold(OPERATOR, operator.end)).toBe("function");
    expect(held.revoked(OPERATOR.key)).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("says why in the door's words: an SSE event and a JSON-RPC error", () => {
    expect(keyEndedEvent("revoked")).toBe(
      'event: unauthorized\ndata: {"error":"unauthorized","message":"this key was revoked; ask the Operator for a new one (agentcage keys create)"}\n\n',
    );
    expect(keyEndedRpcError("expired")).toEqual({
      code: -32000,
      message: "this key has expired; ask the Operator for a new one (agentcage keys create)",
      data: { error: "unauthorized" },
    });
  });
});
