// Which addresses a webhook may go to (which are public is src/address's table): a callback URL
// checked on every address its host resolves to, and one that does not resolve refused.

import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { callbackRefusal, checkCallbackUrl, pinnedLookup } from "./callback-address.js";
import type { TenantStore } from "../tenancy/index.js";
import { OPERATOR } from "../caller.js";

const resolvesTo =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

describe("checkCallbackUrl", () => {
  it("refuses a host when any one of its addresses is not public, naming it", async () => {
    const checked = await checkCallbackUrl("https://hooks.example.com/x", false, resolvesTo("93.184.216.34", "10.0.0.7"));
    expect(checked).toEqual({ ok: false, why: "resolves to 10.0.0.7, a private address" });
  });

  it("lets a host whose addresses are all public through, with those addresses", async () => {
    const checked = await checkCallbackUrl("https://hooks.example.com/x", false, resolvesTo("93.184.216.34", "2606:2800:220:1::1"));
    expect(checked).toMatchObject({ ok: true, addresses: [{ address: "93.184.216.34" }, { address: "2606:2800:220:1::1" }] });
  });

  it("checks an address written in the URL, IPv6 in brackets too, through the real resolver", async () => {
    expect(await checkCallbackUrl("http://127.0.0.1:9/x", false)).toEqual({ ok: false, why: "resolves to 127.0.0.1, a loopback address" });
    expect(await checkCallbackUrl("http://[::1]:9/x", false)).toEqual({ ok: false, why: "resolves to ::1, a loopback address" });
    expect(await checkCallbackUrl("http://[::ffff:169.254.169.254]/", false)).toMatchObject({ ok: false, why: expect.stringContaining("link-local") });
    expect(await checkCallbackUrl("http://127.0.0.1:9/x", true)).toMatchObject({ ok: true, addresses: [{ address: "127.0.0.1" }] });
  });

  it("refuses a host that does not resolve, allowed private addresses or not", async () => {
    const fails = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    for (const allowPrivate of [false, true]) {
      expect(await checkCallbackUrl("https://nowhere.invalid/", allowPrivate, fails)).toEqual({
        ok: false,
        why: "names a host that does not resolve (ENOTFOUND)",
      });
    }
  });
});

describe("pinnedLookup", () => {
  it("answers the addresses checked, one or all, whatever name it is asked", async () => {
    const lookup = pinnedLookup([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1::1", family: 6 },
    ]);
    const one = await new Promise((resolve) => lookup("rebound.example.com", {}, (_error, address, family) => resolve([address, family])));
    expect(one).toEqual(["93.184.216.34", 4]);
    const all = await new Promise((resolve) => lookup("rebound.example.com", { all: true }, (_error, addresses) => resolve(addresses)));
    expect(all).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1::1", family: 6 },
    ]);
  });
});

describe("callbackRefusal", () => {
  const tenants = (callbackUrl?: string) =>
    ({
      get: () => ({ name: "operator", createdAt: "", quotas: {}, webhookSecret: "whsec_x", ...(callbackUrl === undefined ? {} : { callbackUrl }) }),
    }) as unknown as TenantStore;
  const request = (callbackUrl?: string) => ({ cli: "claude" as const, prompt: "hi", ...(callbackUrl === undefined ? {} : { callbackUrl }) });

  it("names callbackUrl, quotes it and says what to do, for the request's own and the tenant's default", async () => {
    const own = await callbackRefusal(tenants(), false)(request("http://10.1.2.3/hook"), OPERATOR);
    expect(own).toContain('callbackUrl "http://10.1.2.3/hook" resolves to 10.1.2.3, a private address');
    expect(own).toContain("--allow-private-callbacks");
    const fallback = await callbackRefusal(tenants("http://127.0.0.1:1/x"), false)(request(), OPERATOR);
    expect(fallback).toContain(`callbackUrl (your tenant's default) "http://127.0.0.1:1/x" resolves to 127.0.0.1, a loopback address`);
    expect(fallback).toContain("give a callbackUrl of your own");
  });

  it("lets a Run with no callback URL through, and a private one when allowed", async () => {
    expect(await callbackRefusal(tenants(), false)(request(), OPERATOR)).toBeUndefined();
    expect(await callbackRefusal(tenants(), true)(request("http://127.0.0.1:9/x"), OPERATOR)).toBeUndefined();
  });
});
