// Which addresses are public: every loopback, private, link-local, shared, multicast and reserved
// range refused in IPv4 and IPv6, and every IPv6 form that carries an IPv4 address judged by it.

import { describe, expect, it } from "vitest";
import { whyNotPublic } from "./index.js";

describe("whyNotPublic", () => {
  it.each([
    ["0.0.0.0", "an unspecified (this-network) address"],
    ["0.1.2.3", "an unspecified (this-network) address"],
    ["127.0.0.1", "a loopback address"],
    ["127.255.255.254", "a loopback address"],
    ["10.0.0.1", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["169.254.169.254", "a link-local address"],
    ["100.64.0.1", "a shared (carrier-grade NAT) address"],
    ["100.127.255.255", "a shared (carrier-grade NAT) address"],
    ["224.0.0.1", "a multicast address"],
    ["239.255.255.250", "a multicast address"],
    ["255.255.255.255", "a reserved address"],
    ["240.0.0.1", "a reserved address"],
    ["192.0.2.10", "a documentation address"],
    ["198.18.0.1", "a benchmarking address"],
    ["::", "an unspecified address"],
    ["::1", "a loopback address"],
    ["fc00::1", "a private (unique local) address"],
    ["fd12:3456:789a::1", "a private (unique local) address"],
    ["fe80::1", "a link-local address"],
    ["fe80::1%eth0", "a link-local address"],
    ["fec0::1", "a private (site-local) address"],
    ["ff02::1", "a multicast address"],
    ["2001:db8::1", "a documentation address"],
    ["3fff::1", "a documentation address"],
    ["100::1", "a reserved (discard) address"],
    ["2001:2::1", "a reserved (IETF protocol assignments) address"],
    ["2001:1ff::1", "a reserved (IETF protocol assignments) address"],
    // IPv4-mapped ::ffff:0:0/96
    ["::ffff:127.0.0.1", "a loopback address (IPv4-mapped 127.0.0.1)"],
    ["::ffff:7f00:1", "a loopback address (IPv4-mapped 127.0.0.1)"],
    ["::ffff:10.1.2.3", "a private address (IPv4-mapped 10.1.2.3)"],
    ["::ffff:169.254.169.254", "a link-local address (IPv4-mapped 169.254.169.254)"],
    // IPv4-translated ::ffff:0:0:0/96 (SIIT)
    ["::ffff:0:127.0.0.1", "a loopback address (IPv4-translated 127.0.0.1)"],
    ["::ffff:0:7f00:1", "a loopback address (IPv4-translated 127.0.0.1)"],
    ["0:0:0:0:ffff:0:a00:1", "a private address (IPv4-translated 10.0.0.1)"],
    ["::ffff:0:169.254.169.254", "a link-local address (IPv4-translated 169.254.169.254)"],
    // IPv4-compatible ::/96 (deprecated): refused even around a public IPv4 address
    ["::127.0.0.1", "a loopback address (IPv4-compatible 127.0.0.1)"],
    ["::10.0.0.1", "a private address (IPv4-compatible 10.0.0.1)"],
    ["::8.8.8.8", "a reserved (IPv4-compatible, deprecated) address"],
    ["::808:808", "a reserved (IPv4-compatible, deprecated) address"],
    // NAT64: the well-known prefix carries the IPv4 address at the end; the local-use one is the site's
    ["64:ff9b::a9fe:a9fe", "a link-local address (NAT64 169.254.169.254)"],
    ["64:ff9b::127.0.0.1", "a loopback address (NAT64 127.0.0.1)"],
    ["64:ff9b:1::a00:1", "a private (local-use NAT64) address"],
    ["64:ff9b:1:808:800::", "a private (local-use NAT64) address"],
    // 6to4 2002::/16: the IPv4 address is bits 16-47
    ["2002:c0a8:0101::1", "a private address (6to4 192.168.1.1)"],
    ["2002:7f00:1::", "a loopback address (6to4 127.0.0.1)"],
    // Teredo 2001::/32: refused whatever server and client it names
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "a Teredo tunnel address"],
    ["2001:0:7f00:1:0:0:80ff:fffe", "a Teredo tunnel address"],
    ["2001::", "a Teredo tunnel address"],
  ])("%s is %s", (address, why) => {
    expect(whyNotPublic(address)).toBe(why);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "172.15.255.255",
    "172.32.0.1",
    "100.63.255.255",
    "100.128.0.1",
    "192.169.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::200e",
    "::ffff:8.8.8.8",
    "::ffff:0:8.8.8.8",
    "64:ff9b::808:808",
    "2002:0808:0808::1",
    // ISATAP: routed by its prefix, not by the IPv4 address in its interface id
    "2001:4860:1::5efe:10.0.0.1",
  ])("%s is public", (address) => {
    expect(whyNotPublic(address)).toBeUndefined();
  });

  it("calls what is not an address, or an address in a spelling only some parsers take, not an IP address", () => {
    for (const text of ["example.com", "", "0x7f.1", "2130706433", "127.1", "[::1]"]) expect(whyNotPublic(text)).toBe("not an IP address");
  });
});
