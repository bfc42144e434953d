// The Run networks' address plan, without the engine: /28s of the named range, each held by one
// Run at a time, every one of them usable (4,096 in a /16, far past the engine's ~30), one given
// back handed out again, one the engine refused skipped for a while, and a range that cannot
// hold a /28 refused naming the option and its value.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../../test/support/fake-engine.js";
import { createRunAddresses, DEFAULT_RUN_NETWORK_RANGE, parseRange, REFUSED_SUBNET_QUARANTINE_MS, routeInto, runAddressesOf } from "./run-addresses.js";
import { openRunNetwork } from "./run-network.js";
import { routesOfRange, runNetworkRangeClash } from "./range-clash.js";

const scratch = mkdtempSync(join(tmpdir(), "agentcage-routes-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the Run networks' addresses", () => {
  it("hands out every /28 of the range once, then none, and one given back again", () => {
    const addresses = createRunAddresses("10.213.0.0/16");
    const taken = new Set<string>();
    for (let i = 0; i < 4096; i++) taken.add(addresses.take() as string);
    expect(taken.size).toBe(4096);
    for (const subnet of taken) expect(subnet).toMatch(/^10\.213\.\d{1,3}\.\d{1,3}\/28$/);
    expect([...taken].every((subnet) => Number(subnet.split(".")[3]?.split("/")[0]) % 16 === 0)).toBe(true);
    expect(addresses.take()).toBeUndefined();
    addresses.give("10.213.7.48/28");
    expect(addresses.take()).toBe("10.213.7.48/28");
  });

  it("skips a subnet the engine refused as overlapping until its quarantine passes", () => {
    let now = 0;
    const addresses = createRunAddresses("192.168.240.0/27", () => now);
    const first = addresses.take() as string;
    const second = addresses.take() as string;
    expect(new Set([first, second])).toEqual(new Set(["192.168.240.0/28", "192.168.240.16/28"]));
    addresses.refuse(first);
    addresses.give(second);
    expect(addresses.take()).toBe(second);
    expect(addresses.take()).toBeUndefined();
    now += REFUSED_SUBNET_QUARANTINE_MS + 1;
    expect(addresses.take()).toBe(first);
  });

  it("refuses a range that is not an IPv4 CIDR holding a /28, naming the option and the value", () => {
    expect(() => parseRange("10.213.0.0/29")).toThrow('runNetworkRange "10.213.0.0/29" is not an IPv4 range of /8 to /28');
    expect(() => parseRange("10.213.0.0")).toThrow(/is not an IPv4 range/);
    expect(() => parseRange("300.1.0.0/16")).toThrow(/is not an IPv4 range/);
    expect(() => parseRange("10.213.5.0/16")).toThrow('runNetworkRange "10.213.5.0/16" has bits set past its /16; write 10.213.0.0/16');
    expect(parseRange("10.213.0.0/16")).toEqual({ base: (10 * 256 + 213) * 65536, prefix: 16 });
  });

  it("finds a route of the host's own interfaces into the range, and passes over the default route and the engine's bridges", () => {
    // As Linux writes /proc/net/route: addresses and masks in hex, bytes in memory order.
    const table = join(scratch, "route");
    writeFileSync(
      table,
      [
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
        "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0",
        "docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0",
        "br-1234abcd\t0000D50A\t00000000\t0001\t0\t0\t0\t00F0FFFF\t0\t0\t0",
        "wg0\t0040D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        "",
      ].join("\n"),
    );
    expect(routeInto("10.213.0.0/16", table)).toBe("10.213.64.0/24 via wg0");
    expect(routeInto("10.213.0.0/18", table)).toBeUndefined();
    expect(routeInto("172.17.0.0/16", table)).toBeUndefined();
    expect(routeInto("10.213.0.0/16", join(scratch, "no-such-table"))).toBeUndefined();
  });

  it("tells a check before any Run the engine's networks in the range apart from its own interfaces' routes and from a Run's own /28s", () => {
    const table = join(scratch, "route-engines");
    writeFileSync(
      table,
      [
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT",
        // 10.213.0.0/24 on an engine's bridge; 10.213.1.16/28, a Run's own under the open policy; 10.213.64.0/24 on wg0.
        "br-0123456789ab\t0000D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        "br-ba9876543210\t1001D50A\t00000000\t0001\t0\t0\t0\tF0FFFFFF\t0\t0\t0",
        "wg0\t0040D50A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0",
        "",
      ].join("\n"),
    );
    expect(routesOfRange("10.213.0.0/16", table)).toEqual({
      hosts: ["10.213.64.0/24 via wg0"],
      engines: ["10.213.0.0/24 via br-0123456789ab, the engine's network 0123456789ab"],
    });
    expect(routesOfRange("10.214.0.0/16", table)).toEqual({ hosts: [], engines: [] });
    // At a runner's start: the default range reaching into wg0's route, and a range an engine's network holds whole, stop every Run.
    expect(runNetworkRangeClash(undefined, table)).toMatchObject({
      kind: "run-network-range",
      reason: "the Run networks' range 10.213.0.0/16 overlaps this host's route to 10.213.64.0/24 via wg0: no Run that needs a network of its own can start",
      stopsRuns: true,
    });
    expect(runNetworkRangeClash("10.213.0.0/25", table)).toMatchObject({
      reason: expect.stringContaining(
        "the Run networks' range 10.213.0.0/25 lies within this host's route to 10.213.0.0/24 via br-0123456789ab, the engine's network 0123456789ab",
      ),
      stopsRuns: true,
    });
    // One it holds a part of costs a Run a few tries: said only if the engine refuses 8 subnets in a row.
    expect(runNetworkRangeClash("10.213.0.0/23", table)).toBeUndefined();
  });

  it("refuses a range named that reaches into a host's route at once, and the default one only when a Run needs a network", async () => {
    const lan = () => "10.213.64.0/24 via wg0";
    expect(() => runAddressesOf("10.213.0.0/16", lan)).toThrow(
      'runNetworkRange "10.213.0.0/16" overlaps this host\'s route to 10.213.64.0/24 via wg0; name a range no network of this host uses',
    );
    expect(() => runAddressesOf(42, lan)).toThrow("runNetworkRange 42 is not a string");
    expect(runAddressesOf("10.99.0.0/16", () => undefined).unusable).toBeUndefined();
    // The default: a runtime that never makes a Run network (policy none) is not refused for it.
    const defaults = runAddressesOf(undefined, lan);
    expect(defaults.range).toBe(DEFAULT_RUN_NETWORK_RANGE);
    const fake = createFakeEngine({});
    const opened = await openRunNetwork(fake, "00000000000000a1", { kind: "internal" }, {}, "test-owner", defaults);
    expect(opened).toEqual({ refused: expect.stringContaining("overlaps this host's route to 10.213.64.0/24 via wg0") });
    expect([...fake.networks().keys()]).toEqual([]);
  });
});
