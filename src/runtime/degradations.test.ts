// What makes a runtime less than it says, without the engine: the board says a degradation once when
// it begins and once when it ends, however often its cause repeats; a pool whose members cannot be
// made (the fake engine refusing every create) is degraded after POOL_DEGRADED_IN_A_ROW failures and
// mends with its next member; a Run network range the engine refuses SUBNET_TRIES subnets of in a row
// clashes, naming the route into them, until a network takes a subnet of it again; an engine drained
// (or the one engine not answering its check) is degraded until it answers again.

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { capturingLogger } from "../../test/support/engine.js";
import { createAgentContainerRuntime, type AgentContainerRuntime } from "../index.js";
import { createDegradations, createEngineSet } from "../subpaths/runtime.js";
import { POOL_DEGRADED_IN_A_ROW } from "./pool/index.js";
import { refusedRangeReport, reportingClashes } from "./network/index.js";
import { createRunAddresses } from "./network/index.js";
import { openRunNetwork, SUBNET_TRIES } from "./network/index.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const said = (lines: readonly string[], msg: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line["msg"] === msg);

const runtimes: AgentContainerRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

describe("the board of degradations", () => {
  it("says one line when one begins and one when it ends, however often it is raised between", () => {
    const { logger, lines } = capturingLogger();
    let now = 1_000_000;
    const board = createDegradations(logger, () => now);
    for (let i = 1; i <= 5; i++) board.raise({ kind: "pool", reason: `failed ${i} times`, fix: "mend it" });
    expect(board.list()).toEqual([
      { kind: "pool", subject: "", reason: "failed 5 times", fix: "mend it", stopsRuns: false, since: new Date(1_000_000).toISOString() },
    ]);
    now += 4000;
    board.clear("pool");
    board.clear("pool");
    expect(board.list()).toEqual([]);
    expect(said(lines, "degraded")).toEqual([expect.objectContaining({ level: 40, degraded: "pool", reason: "failed 1 times", fix: "mend it" })]);
    expect(said(lines, "no longer degraded")).toEqual([expect.objectContaining({ level: 30, degraded: "pool", lastedMs: 4000 })]);
    expect(board.begun()).toMatchObject({ pool: 1, engine: 0 });
  });

  it("keeps one entry per subject of a kind, oldest first", () => {
    const board = createDegradations(pino({ level: "silent" }));
    board.raise({ kind: "engine", subject: "b", reason: "b is gone", fix: "start b" });
    board.raise({ kind: "engine", subject: "c", reason: "c is gone", fix: "start c" });
    board.raise({ kind: "engine", subject: "b", reason: "b is still gone", fix: "start b" });
    expect(board.list().map((one) => [one.subject, one.reason])).toEqual([
      ["b", "b is still gone"],
      ["c", "c is gone"],
    ]);
    board.clear("engine", "b");
    expect(board.list().map((one) => one.subject)).toEqual(["c"]);
    expect(board.begun().engine).toBe(2);
  });
});

describe("a warm pool whose members cannot be made", () => {
  function failingPool(): { runtime: AgentContainerRuntime; lines: string[]; mend: () => void } {
    const { logger, lines } = capturingLogger();
    const fake = createFakeEngine({ echoStdin: true });
    let broken = true;
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger },
      run: () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) }),
      engine: {
        ...fake,
        create: (spec) => (broken ? Promise.reject(new Error("No such image: fake:1")) : fake.create(spec)),
      },
      pool: { size: 1 },
    });
    runtimes.push(runtime);
    return { runtime, lines, mend: () => (broken = false) };
  }

  it("is degraded once it failed POOL_DEGRADED_IN_A_ROW times in a row, said once in the log, and mends with its next member", async () => {
    const { runtime, lines, mend } = failingPool();
    // Backing off 0.5, 1, 2 s between the makes: the third failure comes after about 1.5 s.
    for (let i = 0; i < 120 && runtime.degradations.list().length === 0; i++) await sleep(50);
    expect(runtime.pool()?.failures).toBeGreaterThanOrEqual(POOL_DEGRADED_IN_A_ROW);
    expect(runtime.degradations.list()).toEqual([
      expect.objectContaining({
        kind: "pool",
        reason: `the warm pool could not make a container ${POOL_DEGRADED_IN_A_ROW} times in a row (the last: No such image: fake:1); Runs start cold meanwhile`,
        stopsRuns: false,
      }),
    ]);
    await sleep(2500);
    expect(runtime.pool()?.failures).toBeGreaterThan(POOL_DEGRADED_IN_A_ROW);
    expect(said(lines, "degraded")).toHaveLength(1);
    mend();
    for (let i = 0; i < 400 && runtime.pool()?.ready !== 1; i++) await sleep(50);
    expect(runtime.pool()?.ready).toBe(1);
    expect(runtime.degradations.list()).toEqual([]);
    expect(said(lines, "no longer degraded")).toHaveLength(1);
    expect(runtime.degradations.begun().pool).toBe(1);
  }, 30_000);

  it("is not degraded by fewer failures than that", async () => {
    const { runtime, mend } = failingPool();
    for (let i = 0; i < 100 && (runtime.pool()?.failures ?? 0) < 1; i++) await sleep(10);
    mend();
    for (let i = 0; i < 200 && runtime.pool()?.ready !== 1; i++) await sleep(10);
    expect(runtime.pool()?.ready).toBe(1);
    expect(runtime.degradations.begun().pool).toBe(0);
  });
});

describe("an engine gone", () => {
  it("alone, is degraded (stopping every Run) while its check finds it not answering, and mends when it answers", async () => {
    const fake = createFakeEngine({});
    let down = true;
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: pino({ level: "silent" }) },
      run: () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) }),
      engine: { ...fake, ping: () => (down ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })) : fake.ping()) },
    });
    runtimes.push(runtime);
    expect(await runtime.check()).toMatchObject({ engine: false });
    expect(runtime.degradations.list()).toEqual([expect.objectContaining({ kind: "engine", subject: "", stopsRuns: true })]);
    down = false;
    expect(await runtime.check()).toMatchObject({ engine: true });
    expect(runtime.degradations.list()).toEqual([]);
  });

  it("of several, is degraded once it is drained, naming it and what its ping said, and mends when it answers again", async () => {
    const flaky = createFakeEngine({});
    let down = true;
    const set = createEngineSet([
      { name: "steady", engine: createFakeEngine({}) },
      {
        name: "flaky",
        engine: { ...flaky, ping: () => (down ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" })) : flaky.ping()) },
      },
    ]);
    const runtime = createAgentContainerRuntime({
      container: { image: "fake:1", logger: pino({ level: "silent" }) },
      run: () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true }) }),
      engines: set,
    });
    runtimes.push(runtime);
    try {
      // Drained after ENGINE_DRAIN_AFTER_FAILED_PINGS pings a second apart.
      for (let i = 0; i < 100 && runtime.degradations.list().length === 0; i++) await sleep(100);
      expect(runtime.degradations.list()).toEqual([
        expect.objectContaining({
          kind: "engine",
          subject: "flaky",
          reason: expect.stringContaining('the engine "flaky" stopped answering (connect ECONNREFUSED)'),
          stopsRuns: false,
        }),
      ]);
      down = false;
      for (let i = 0; i < 100 && runtime.degradations.list().length > 0; i++) await sleep(100);
      expect(runtime.degradations.list()).toEqual([]);
      expect(runtime.degradations.begun().engine).toBe(1);
    } finally {
      set.close();
    }
  }, 30_000);
});

describe("a Run network range that clashes", () => {
  it("is said when the engine refuses SUBNET_TRIES subnets of it in a row, naming the route into them, and mends when one is taken", async () => {
    const board = createDegradations(pino({ level: "silent" }));
    const addresses = reportingClashes(createRunAddresses("192.168.240.0/24"), board);
    const fake = createFakeEngine({});
    // Another network holds each subnet of the range but one.
    const held = new Set<string>();
    const engine = {
      ...fake,
      createNetwork: async (spec: Parameters<typeof fake.createNetwork>[0]) => {
        if (spec.subnet !== undefined && held.has(spec.subnet))
          throw Object.assign(new Error("Pool overlaps with other one on this address space"), { statusCode: 403 });
        return fake.createNetwork(spec);
      },
    };
    for (let i = 0; i < 16; i++) held.add(`192.168.240.${i * 16}/28`);
    const refused = await openRunNetwork(engine, "00000000000000b1", { kind: "internal" }, {}, "test-owner", addresses);
    expect(refused).toEqual({ refused: expect.stringContaining(`${SUBNET_TRIES} subnets of 192.168.240.0/24 in a row overlap`) });
    expect(board.list()).toEqual([
      expect.objectContaining({
        kind: "run-network-range",
        reason: expect.stringMatching(
          /^the engine refused 8 subnets of the Run networks' range 192\.168\.240\.0\/24 in a row, from 192\.168\.240\.\d+\/28, as overlapping/,
        ),
      }),
    ]);
    held.clear();
    const opened = await openRunNetwork(engine, "00000000000000b2", { kind: "internal" }, {}, "test-owner", addresses);
    expect(opened).toMatchObject({ subnet: expect.stringMatching(/^192\.168\.240\./) });
    expect(board.list()).toEqual([]);
  });

  it("names the route into the refused subnets, an engine's bridge as its network, and stops every Run when the route holds the whole range", () => {
    const routes: Record<string, string> = { "10.252.0.32/28": "10.252.0.0/24 via br-0123456789ab" };
    const whole = refusedRangeReport("10.252.0.0/24", ["10.252.0.16/28", "10.252.0.32/28"], "Pool overlaps", (subnet) => routes[subnet]);
    expect(whole).toMatchObject({
      reason:
        "the engine refused 2 subnets of the Run networks' range 10.252.0.0/24 in a row, from 10.252.0.16/28, as overlapping its other networks (this host's route to 10.252.0.0/24 via br-0123456789ab, the engine's network 0123456789ab); a Run or pooled container that needs a network of its own cannot have one there",
      stopsRuns: true,
    });
    const part = refusedRangeReport("10.252.0.0/16", ["10.252.0.32/28"], "Pool overlaps", (subnet) => routes[subnet]);
    expect(part.stopsRuns).toBe(false);
    const unseen = refusedRangeReport("10.252.0.0/16", ["10.252.0.48/28"], "Pool overlaps with other one on this address space", () => undefined);
    expect(unseen.reason).toContain("(the engine said: Pool overlaps with other one on this address space)");
  });
});
