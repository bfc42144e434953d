// Which addresses a listed name may resolve to: public ones only, whatever the spelling.

import { describe, expect, it } from "vitest";
import { forbiddenRule, resolveDestination } from "./destination.js";

describe("forbiddenRule", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.8.9.10", "a loopback address"],
    ["::1", "a loopback address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["169.254.169.254", "a link-local address (the cloud metadata address is one)"],
    ["fe80::1", "a link-local address (the cloud metadata address is one)"],
    ["10.1.2.3", "a private address"],
    ["172.17.0.1", "a private address"],
    ["172.31.255.254", "a private address"],
    ["192.168.0.10", "a private address"],
    ["100.64.0.1", "a private address"],
    ["::ffff:10.0.0.1", "a private address"],
    ["fd12:3456::1", "a unique-local address"],
    ["0.0.0.0", "an unspecified address"],
    ["::", "an unspecified address"],
    ["239.1.1.1", "a multicast or reserved address"],
  ])("refuses %s as %s", (address, rule) => {
    expect(forbiddenRule(address, new Set())).toBe(rule);
  });

  it.each(["1.1.1.1", "172.32.0.1", "2606:4700::1111", "160.79.104.10"])("lets the public address %s through", (address) => {
    expect(forbiddenRule(address, new Set())).toBeUndefined();
  });

  it("refuses the proxy's own address, whatever range it is in", () => {
    expect(forbiddenRule("203.0.113.7", new Set(["203.0.113.7"]))).toBe("the proxy's own address");
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

  it("connects a public name to the address it checked, and an address the Operator wrote as it is", async () => {
    const lookup = (async () => [{ address: "160.79.104.10", family: 4 }]) as never;
    expect(await resolveDestination("api.example.com", lookup)).toEqual({ address: "160.79.104.10", family: 4 });
    expect(await resolveDestination("10.0.0.7")).toEqual({ address: "10.0.0.7", family: 4 });
  });
});
