// Which addresses a listed name may resolve to: public ones only (src/address), whatever the spelling,
// and never the proxy's own.

import { describe, expect, it } from "vitest";
import { forbiddenRule, resolveDestination } from "./destination.js";

describe("forbiddenRule", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.8.9.10", "a loopback address"],
    ["::1", "a loopback address"],
    ["::ffff:127.0.0.1", "a loopback address (IPv4-mapped 127.0.0.1)"],
    ["::ffff:0:127.0.0.1", "a loopback address (IPv4-translated 127.0.0.1)"],
    ["64:ff9b::169.254.169.254", "a link-local address (NAT64 169.254.169.254)"],
    ["2002:a00:1::1", "a private address (6to4 10.0.0.1)"],
    ["2001:0:7f00:1::", "a Teredo tunnel address"],
    ["169.254.169.254", "a link-local address"],
    ["fe80::1", "a link-local address"],
    ["10.1.2.3", "a private address"],
    ["172.17.0.1", "a private address"],
    ["172.31.255.254", "a private address"],
    ["192.168.0.10", "a private address"],
    ["100.64.0.1", "a shared (carrier-grade NAT) address"],
    ["::ffff:10.0.0.1", "a private address (IPv4-mapped 10.0.0.1)"],
    ["fd12:3456::1", "a private (unique local) address"],
    ["0.0.0.0", "an unspecified (this-network) address"],
    ["::", "an unspecified address"],
    ["239.1.1.1", "a multicast address"],
    ["198.51.100.7", "a documentation address"],
  ])("refuses %s as %s", (address, rule) => {
    expect(forbiddenRule(address, new Set())).toBe(rule);
  });

  it.each(["1.1.1.1", "172.32.0.1", "2606:4700::1111", "160.79.104.10"])("lets the public address %s through", (address) => {
    expect(forbiddenRule(address, new Set())).toBeUndefined();
  });

  it("refuses the proxy's own address, a public one too, IPv4-mapped or not", () => {
    expect(forbiddenRule("160.79.104.10", new Set(["160.79.104.10"]))).toBe("the proxy's own address");
    expect(forbiddenRule("::ffff:160.79.104.10", new Set(["160.79.104.10"]))).toBe("the proxy's own address");
  });
});

describe("resolveDestination", () => {
  it("refuses a name when any address it resolves to is inside, naming the address and the rule", async () => {
    const lookup = (async () => [
      { address: "160.79.104.10", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ]) as never;
    expect(await resolveDestination("api.example.com", lookup)).toEqual({
      refused:
        '"api.example.com" resolves to 10.0.0.7, a private address, which a listed name may not reach; list that address itself if the tunnel is meant to go there',
    });
  });

  it("refuses a name that resolves to loopback written as IPv4-translated IPv6, judging it by its IPv4", async () => {
    const lookup = (async () => [{ address: "::ffff:0:7f00:1", family: 6 }]) as never;
    expect(await resolveDestination("api.example.com", lookup)).toEqual({
      refused: expect.stringContaining('"api.example.com" resolves to ::ffff:0:7f00:1, a loopback address'),
    });
  });

  it("connects a public name to the address it checked, and an address the Operator wrote as it is", async () => {
    const lookup = (async () => [{ address: "160.79.104.10", family: 4 }]) as never;
    expect(await resolveDestination("api.example.com", lookup)).toEqual({ address: "160.79.104.10", family: 4 });
    expect(await resolveDestination("10.0.0.7")).toEqual({ address: "10.0.0.7", family: 4 });
  });
});
