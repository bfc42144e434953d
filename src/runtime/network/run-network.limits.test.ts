// A Run's own network when the engine answers late or is busy, with the bounds lowered so a fake
// engine reaches them at once: a network made after its limit is still removed, a late join is not
// raced by the removal, and network calls wait their turn in the engine's line, which a Run leaves
// when its deadline or its caller ends it. Apart from run-network.test.ts: vi.mock replaces limits.js.

import { pino } from "pino";
import { describe, expect, it, vi } from "vitest";
import { createFakeEngine, type FakeEngine } from "../../../test/support/fake-engine.js";
import { atIdleLoad } from "../../../test/support/idle-load.js";
import { createAgentContainerRuntime } from "../../index.js";
import type { Engine } from "../../subpaths/runtime.js";
import { lineOf, waitTurn } from "./network-line.js";

// The bounds as written, whatever this machine's load: these tests are of what happens at them.
atIdleLoad();

vi.mock("../limits.js", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../limits.js")>()),
  ENGINE_CLEANUP_TIMEOUT_MS: 200,
  NETWORK_CALLS_AT_ONCE: 2,
  NETWORK_TURN_MAX_MS: 5_000,
}));

const silent = pino({ level: "silent" });
const ATTACH = { container: "agentcage-egress-proxy", alias: "egress" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A runtime whose Run networks take the one /28 of 10.213.0.0/28: a second Run gets a subnet only once the first's is given back. */
function runtimeOn(engine: Engine, maxConcurrentRuns = 1) {
  return createAgentContainerRuntime({
    container: { image: "fake:1", logger: silent },
    run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
    engine,
    maxConcurrentRuns,
    runNetworkRange: "10.213.0.0/28",
  });
}

/** Waits (up to 3 s) until the fake was asked to remove a network, then holds none. */
async function noNetworksLeft(fake: FakeEngine): Promise<void> {
  const removing = () => fake.calls.some((call) => call.startsWith("removeNetwork "));
  for (let waited = 0; !removing() && waited < 3_000; waited += 20) await sleep(20);
  await sleep(20);
  expect([...fake.networks().keys()]).toEqual([]);
}

describe("a Run's own network when the engine answers late", () => {
  it("removes a network the engine made after the limit once it exists, and holds its subnet till then", async () => {
    const fake = createFakeEngine({});
    const createNetwork = fake.createNetwork;
    let late = true;
    Object.assign(fake, {
      createNetwork: async (spec: Parameters<Engine["createNetwork"]>[0]) => {
        if (late) {
          late = false;
          await sleep(500);
        }
        return createNetwork(spec);
      },
    });
    const runtime = runtimeOn(fake);
    const network = { kind: "internal" as const, attach: ATTACH };
    const first = await runtime.run({ text: "hi" }, { network });
    expect(first).toMatchObject({ ok: false, reason: "unavailable", error: expect.stringContaining("did not answer create network within 200 ms") });
    // The engine may still make the first network on that subnet: no other Run may have it yet.
    const second = await runtime.run({ text: "hi" }, { network });
    expect(second).toMatchObject({ ok: false, reason: "unavailable", error: expect.stringContaining("every subnet of the Run networks' range") });
    await noNetworksLeft(fake);
    expect(fake.calls.filter((call) => call.startsWith("removeNetwork "))).toEqual([`removeNetwork agentcage-net-${first.runId}`]);
    const third = await runtime.run({ text: "hi" }, { network });
    expect(third.ok).toBe(true);
  });

  it("waits for a join the engine answers after the limit before removing the network, and holds its subnet till then", async () => {
    const fake = createFakeEngine({});
    const told: string[] = [];
    const connectNetwork = fake.connectNetwork;
    const removeNetwork = fake.removeNetwork;
    let late = true;
    Object.assign(fake, {
      connectNetwork: async (name: string, container: string, aliases: readonly string[]) => {
        if (late) {
          late = false;
          await sleep(500);
        }
        await connectNetwork(name, container, aliases);
        told.push("join answered");
      },
      removeNetwork: async (name: string) => {
        told.push("removeNetwork");
        return removeNetwork(name);
      },
    });
    const runtime = runtimeOn(fake);
    const network = { kind: "internal" as const, attach: ATTACH };
    const first = await runtime.run({ text: "hi" }, { network });
    expect(first).toMatchObject({ ok: false, reason: "unavailable", error: expect.stringContaining("did not answer connect network within 200 ms") });
    const second = await runtime.run({ text: "hi" }, { network });
    expect(second).toMatchObject({ ok: false, reason: "unavailable", error: expect.stringContaining("every subnet of the Run networks' range") });
    await noNetworksLeft(fake);
    expect(told).toEqual(["join answered", "removeNetwork"]);
    expect((await runtime.run({ text: "hi" }, { network })).ok).toBe(true);
  });
});

describe("the engine's line of network calls", () => {
  it("lets at most NETWORK_CALLS_AT_ONCE network calls reach the engine at once; the others wait their turn and all complete", async () => {
    const fake = createFakeEngine({});
    let underWay = 0;
    let most = 0;
    const slow =
      <A extends unknown[], T>(call: (...args: A) => Promise<T>) =>
      async (...args: A): Promise<T> => {
        most = Math.max(most, ++underWay);
        try {
          await sleep(20);
          return await call(...args);
        } finally {
          underWay--;
        }
      };
    Object.assign(fake, {
      createNetwork: slow(fake.createNetwork),
      connectNetwork: slow(fake.connectNetwork),
      removeNetwork: slow(fake.removeNetwork),
    });
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: silent },
      run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: async () => ({ ok: true }) }),
      engine: fake,
      maxConcurrentRuns: 12,
    });
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => runtime.run({ text: "hi" }, { network: { kind: "internal", attach: ATTACH } })));
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(most).toBe(2);
    expect([...fake.networks().keys()]).toEqual([]);
    expect(lineOf(fake)).toEqual({ busy: 0, waiting: 0 });
  });

  it("gives a free turn to a removal first, then a Run's network, then a pool member's, each in order", async () => {
    const fake = createFakeEngine({});
    const held = [await waitTurn(fake, "run"), await waitTurn(fake, "run")];
    const started: string[] = [];
    // Each waiter gives its turn back as soon as it has it: the one turn freed serves them all, one by one.
    const waiting = (["ahead", "run", "removal", "run", "removal"] as const).map((kind, i) =>
      waitTurn(fake, kind).then((turn) => {
        started.push(`${kind} ${i}`);
        turn();
      }),
    );
    expect(lineOf(fake)).toEqual({ busy: 2, waiting: 5 });
    held[0]?.();
    await Promise.all(waiting);
    expect(started).toEqual(["removal 2", "removal 4", "run 1", "run 3", "ahead 0"]);
    held[1]?.();
    expect(lineOf(fake)).toEqual({ busy: 0, waiting: 0 });
  });

  it("ends a Run whose deadline passes, or whose caller cancels it, while it waits its turn, with nothing made and the line left", async () => {
    const fake = createFakeEngine({});
    const runtime = runtimeOn(fake, 2);
    // Another caller holds both turns for now.
    const held = [await waitTurn(fake, "run"), await waitTurn(fake, "run")];
    const cancel = new AbortController();
    const network = { kind: "internal" as const, attach: ATTACH };
    const cancelled = runtime.run({ text: "hi" }, { network, signal: cancel.signal });
    const timedOut = runtime.run({ text: "hi" }, { network, timeoutSeconds: 1 });
    await sleep(100);
    expect(lineOf(fake)).toEqual({ busy: 2, waiting: 2 });
    cancel.abort();
    expect(await cancelled).toMatchObject({ ok: false, reason: "cancelled" });
    expect(await timedOut).toMatchObject({ ok: false, reason: "timeout" });
    expect(lineOf(fake)).toEqual({ busy: 2, waiting: 0 });
    expect(fake.calls.filter((call) => /Network /.test(call))).toEqual([]);
    for (const turn of held) turn();
    expect((await runtime.run({ text: "hi" }, { network })).ok).toBe(true);
    expect([...fake.networks().keys()]).toEqual([]);
  });
});
