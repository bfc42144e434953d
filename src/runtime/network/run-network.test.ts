// A Run's own network against the fake engine: made before the container with its one attached peer,
// the container joined to it alone, removed after the Run whatever happened; a network the engine
// refuses ends the Run unavailable before any container; a crashed process's network is swept.

import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createFakeEngine, type FakeContainerScript } from "../../../test/support/fake-engine.js";
import { createAgentContainerRuntime, type RunOptions } from "../../index.js";
import { newRunId, runNetworkName } from "../index.js";
import type { Engine } from "../../subpaths/runtime.js";

const silent = pino({ level: "silent" });
const ATTACH = { container: "agentcage-egress-proxy", alias: "egress" };

function runtimeOn(engine: Engine) {
  return createAgentContainerRuntime({
    container: { image: "fake:1", logger: silent },
    run: (prompt) => ({
      args: ["agent"],
      stdin: prompt.text,
      outcome: async (stdout) => {
        for await (const _ of stdout) void _;
        return { ok: true };
      },
    }),
    engine,
  });
}

describe("a Run's own network", () => {
  it("is made and joined by its peer before the container, which joins it alone, and is gone after the Run", async () => {
    let networksOfContainer: readonly string[] = [];
    const fake = createFakeEngine((spec) => {
      networksOfContainer = spec.networks;
      return {} satisfies FakeContainerScript;
    });
    const runId = newRunId();
    let seenAtCreate: unknown;
    const created = fake.create;
    Object.assign(fake, {
      create: async (spec: Parameters<Engine["create"]>[0]) => {
        const network = fake.networks().get(runNetworkName(runId));
        seenAtCreate = network === undefined ? undefined : { internal: network.internal, members: Object.fromEntries(network.members) };
        return created(spec);
      },
    });
    const outcome = await runtimeOn(fake).run({ text: "hi" }, { runId, network: { kind: "internal", attach: ATTACH } });
    expect(outcome).toMatchObject({ ok: true, runId });
    expect(seenAtCreate).toEqual({ internal: true, members: { [ATTACH.container]: ["egress"] } });
    expect(networksOfContainer).toEqual([runNetworkName(runId)]);
    expect([...fake.networks().keys()]).toEqual([]);
    expect(fake.existing()).toEqual([]);
    const order = fake.calls.filter((c) => /^(createNetwork|connectNetwork|create|removeNetwork|remove) /.test(c)).map((c) => c.split(" ")[0]);
    expect(order).toEqual(["createNetwork", "connectNetwork", "create", "remove", "removeNetwork"]);
  });

  it("hands onOpened the engine's address ranges before the container, and tells onAgentGone when it exits, before the network goes", async () => {
    const fake = createFakeEngine({});
    const runId = newRunId();
    const told: string[] = [];
    const removeNetwork = fake.removeNetwork;
    Object.assign(fake, {
      removeNetwork: async (name: string) => {
        told.push("removeNetwork");
        return removeNetwork(name);
      },
      create: ((created) => async (spec: Parameters<Engine["create"]>[0]) => {
        told.push("create");
        return created(spec);
      })(fake.create),
    });
    const outcome = await runtimeOn(fake).run(
      { text: "hi" },
      {
        runId,
        network: {
          kind: "internal",
          attach: ATTACH,
          onOpened: async ({ subnets }) => void told.push(`opened ${subnets.join(",")}`),
          onAgentGone: () => void told.push("agent gone"),
        },
      },
    );
    expect(outcome.ok).toBe(true);
    // A /28 of the default Run network range, not one of the engine's own pools.
    expect(told).toEqual([expect.stringMatching(/^opened 10\.213\.\d+\.\d+\/28$/), "create", "agent gone", "removeNetwork"]);
  });

  it("gives every one of 100 Runs at once a /28 of its own, past the ~30 networks of the engine's pools, and each back after", async () => {
    const fake = createFakeEngine({});
    const subnets: string[] = [];
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
      engine: fake,
      maxConcurrentRuns: 100,
      runNetworkRange: "10.213.0.0/20",
    });
    const network = {
      kind: "internal" as const,
      attach: ATTACH,
      onOpened: async ({ subnets: held }: { subnets: readonly string[] }) => void subnets.push(...held),
    };
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => runtime.run({ text: "hi" }, { network })));
    expect(outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.error)).toEqual([]);
    expect(new Set(subnets).size).toBe(100);
    expect(subnets.every((subnet) => /^10\.213\.([0-9]|1[0-5])\.\d+\/28$/.test(subnet))).toBe(true);
    expect([...fake.networks().keys()]).toEqual([]);
  });

  it("passes over a subnet another network of the engine holds, and takes the next", async () => {
    const fake = createFakeEngine({});
    // A /27 holds two /28s: the Operator's own network has one of them.
    await fake.createNetwork({ name: "someone-else", internal: false, labels: {}, subnet: "192.168.77.0/28" });
    const held: string[] = [];
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
      engine: fake,
      runNetworkRange: "192.168.77.0/27",
    });
    for (let i = 0; i < 3; i++) {
      const outcome = await runtime.run({ text: "hi" }, { network: { kind: "internal", onOpened: async ({ subnets }) => void held.push(...subnets) } });
      expect(outcome.ok).toBe(true);
    }
    expect(held).toEqual(["192.168.77.16/28", "192.168.77.16/28", "192.168.77.16/28"]);
  });

  it("refuses a Run when every subnet of the range is held, saying to narrow the Runs or widen the range", async () => {
    const fake = createFakeEngine({});
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
      engine: fake,
      maxConcurrentRuns: 3,
      runNetworkRange: "10.213.0.0/27",
    });
    const outcomes = await Promise.all(Array.from({ length: 3 }, () => runtime.run({ text: "hi" }, { network: { kind: "internal" } })));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(2);
    expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({
      reason: "unavailable",
      error: expect.stringContaining("every subnet of the Run networks' range 10.213.0.0/27 is in use"),
    });
  });

  it("refuses a range that is not one, naming it and the option", () => {
    const on = (runNetworkRange: unknown) => () =>
      createAgentContainerRuntime({
        container: { image: "fake:1", logger: silent },
        run: () => ({ args: [] }),
        engine: createFakeEngine({}),
        runNetworkRange,
      } as never);
    expect(on("10.213.0.0/29")).toThrow('runNetworkRange "10.213.0.0/29" is not an IPv4 range of /8 to /28');
    expect(on(42)).toThrow("runNetworkRange 42 is not a string");
  });

  it("refuses the Run unavailable when onOpened rejects, with no container made and no network left", async () => {
    const fake = createFakeEngine({});
    const outcome = await runtimeOn(fake).run(
      { text: "hi" },
      { network: { kind: "internal", attach: ATTACH, onOpened: async () => Promise.reject(new Error("the egress proxy no longer knows the Run")) } },
    );
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable", error: expect.stringContaining("the egress proxy no longer knows the Run") });
    expect(fake.calls.some((c) => c.startsWith("create "))).toBe(false);
    expect([...fake.networks().keys()]).toEqual([]);
  });

  it("an open network has a route out and no peer", async () => {
    const fake = createFakeEngine({});
    let kind: boolean | undefined;
    const created = fake.create;
    Object.assign(fake, {
      create: async (spec: Parameters<Engine["create"]>[0]) => {
        kind = fake.networks().get(spec.networks[0] ?? "")?.internal;
        return created(spec);
      },
    });
    const outcome = await runtimeOn(fake).run({ text: "hi" }, { network: { kind: "open" } });
    expect(outcome.ok).toBe(true);
    expect(kind).toBe(false);
    expect(fake.calls.some((c) => c.startsWith("connectNetwork"))).toBe(false);
  });

  it("a network the engine refuses ends the Run unavailable, naming why, before any container", async () => {
    const fake = createFakeEngine(
      {},
      {
        fail: {
          createNetwork: {
            statusCode: 500,
            message: "could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network",
          },
        },
      },
    );
    const outcome = await runtimeOn(fake).run({ text: "hi" }, { network: { kind: "internal", attach: ATTACH } });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toContain("default-address-pools");
    expect(fake.calls.some((c) => c.startsWith("create "))).toBe(false);
    expect(fake.existing()).toEqual([]);
  });

  it("a peer that cannot join ends the Run unavailable, and the network is removed", async () => {
    const fake = createFakeEngine({}, { fail: { connectNetwork: { statusCode: 404, message: "No such container: agentcage-egress-proxy" } } });
    const outcome = await runtimeOn(fake).run({ text: "hi" }, { network: { kind: "internal", attach: ATTACH } });
    expect(outcome).toMatchObject({ ok: false, reason: "unavailable" });
    expect(outcome.error).toContain('"agentcage-egress-proxy"');
    expect([...fake.networks().keys()]).toEqual([]);
    expect(fake.calls.some((c) => c.startsWith("create "))).toBe(false);
  });

  it("refuses a runId that is not one and a network that is not one, naming each, before anything starts", async () => {
    const fake = createFakeEngine({});
    const runtime = runtimeOn(fake);
    const badId = await runtime.run({ text: "hi" }, { runId: "../etc" });
    expect(badId).toMatchObject({ reason: "invalid_request" });
    expect(badId.error).toContain('runId "../etc"');
    const badNetwork = await runtime.run({ text: "hi" }, { network: { kind: "everything" } } as unknown as RunOptions);
    expect(badNetwork.error).toMatch(/^network \{"kind":"everything"\} is not/);
    const badAttach = await runtime.run({ text: "hi" }, { network: { kind: "internal", attach: { container: "x", alias: "Not An Alias" } } });
    expect(badAttach.error).toContain("network.attach");
    expect(fake.calls.filter((c) => !c.startsWith("list"))).toEqual([]);
  });

  it("the sweep removes the network of a Run whose process is gone, and leaves a live one", async () => {
    const fake = createFakeEngine({});
    const labels = {
      "agentcage.owner": "agentcage",
      "agentcage.session": "other",
      "agentcage.host": "elsewhere",
      "agentcage.pid": "1",
      "agentcage.deadline": "1",
    };
    await fake.createNetwork({ name: "agentcage-net-0123456789abcdef", internal: true, labels: { ...labels, "agentcage.run": "0123456789abcdef" } });
    await fake.createNetwork({
      name: "agentcage-net-fedcba9876543210",
      internal: true,
      labels: { ...labels, "agentcage.deadline": String(Date.now() + 3_600_000), "agentcage.run": "fedcba9876543210" },
    });
    // The Operator's own network with the owner's label is no Run's: never swept.
    await fake.createNetwork({ name: "operators-own", internal: false, labels: { "agentcage.owner": "agentcage" } });
    const swept = await runtimeOn(fake).sweep();
    expect(swept.removedNetworks).toEqual(["agentcage-net-0123456789abcdef"]);
    expect([...fake.networks().keys()]).toEqual(["agentcage-net-fedcba9876543210", "operators-own"]);
  });
});
