import { afterEach, describe, expect, it, vi } from "vitest";
import { describeEngineError, type Engine } from "../engine/index.js";
import { createEngineSet, type EngineLease, type EngineSet } from "./engine-set.js";
import { ENGINE_DRAIN_AFTER_FAILED_PINGS, ENGINE_HEALTH_INTERVAL_MS } from "./limits.js";
import { EarlyEnd } from "./misuse.js";

/** An engine that answers (or not) and holds the images it is told, and nothing else. */
function stubEngine(state: { answers: boolean; images: string[] }): Engine {
  return {
    create: async () => "id",
    ping: async () => {
      if (!state.answers) throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    },
    hasImage: async (image: string) => state.images.includes(image),
  } as unknown as Engine;
}

const sets: EngineSet[] = [];
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
  vi.useRealTimers();
});
function setOf(...engines: Parameters<typeof createEngineSet>[0]): EngineSet {
  const set = createEngineSet(engines);
  sets.push(set);
  return set;
}
function leased(answer: Awaited<ReturnType<EngineSet["acquire"]>>): EngineLease {
  if (answer === undefined || "refused" in answer) throw new Error(`not leased: ${JSON.stringify(answer)}`);
  return answer;
}

describe("placement over several engines", () => {
  it("gives a Run to the engine with the most free slots, the first named on a tie", async () => {
    const set = setOf(
      { name: "a", engine: stubEngine({ answers: true, images: ["img"] }), maxConcurrentRuns: 1 },
      { name: "b", engine: stubEngine({ answers: true, images: ["img"] }), maxConcurrentRuns: 3 },
      { name: "c", engine: stubEngine({ answers: true, images: ["img"] }), maxConcurrentRuns: 3 },
    );
    const names = [];
    for (let i = 0; i < 7; i++) names.push(leased(await set.acquire("img")).name);
    expect(names).toEqual(["b", "c", "b", "c", "a", "b", "c"]);
    expect(set.status().map((s) => s.running)).toEqual([1, 3, 3]);
  });

  it("passes over an engine that does not answer, and one without the image, saying why when none is left", async () => {
    const set = setOf(
      { name: "down", engine: stubEngine({ answers: false, images: ["img"] }) },
      { name: "bare", engine: stubEngine({ answers: true, images: [] }) },
      { name: "up", engine: stubEngine({ answers: true, images: ["img"] }) },
    );
    expect(leased(await set.acquire("img")).name).toBe("up");
    const refused = await set.acquire("other");
    expect(refused).toEqual({ refused: expect.stringContaining('"down" does not answer (connect ECONNREFUSED)') });
    expect(refused).toEqual({
      refused: expect.stringContaining('"bare" does not hold the image "other" (load it there: docker save other | docker -H <engine> load)'),
    });
  });

  it("waits for a slot while every usable engine is full, and stops waiting at the caller's abort", async () => {
    const set = setOf({ name: "a", engine: stubEngine({ answers: true, images: ["img"] }), maxConcurrentRuns: 1 });
    const first = leased(await set.acquire("img"));
    const second = set.acquire("img");
    const controller = new AbortController();
    const third = set.acquire("img", controller.signal);
    first.release();
    first.release();
    expect(leased(await second).name).toBe("a");
    controller.abort();
    expect(await third).toBeUndefined();
    expect(set.status()[0]?.running).toBe(1);
  });

  it("drains an engine that fails its pings in a row: its Runs' signals abort as unavailable, its calls fail at once, and it comes back", async () => {
    const flaky = { answers: true, images: ["img"] };
    const set = setOf({ name: "flaky", engine: stubEngine(flaky) }, { name: "steady", engine: stubEngine({ answers: true, images: ["img"] }) });
    const returned: string[] = [];
    set.onReturn((name) => returned.push(name));
    const onFlaky = leased(await set.acquire("img"));
    const onSteady = leased(await set.acquire("img"));
    expect([onFlaky.name, onSteady.name]).toEqual(["flaky", "steady"]);
    const hanging = onFlaky.engine.ping();
    flaky.answers = false;
    await vi.waitFor(() => expect(onFlaky.signal.aborted).toBe(true), { timeout: (ENGINE_DRAIN_AFTER_FAILED_PINGS + 2) * ENGINE_HEALTH_INTERVAL_MS * 3 });
    expect(onFlaky.signal.reason).toBeInstanceOf(EarlyEnd);
    expect((onFlaky.signal.reason as EarlyEnd).why).toBe("unavailable");
    expect((onFlaky.signal.reason as EarlyEnd).message).toContain('the engine "flaky" stopped answering (connect ECONNREFUSED)');
    await hanging.catch(() => undefined);
    await expect(onFlaky.engine.hasImage("img")).rejects.toThrow('the engine "flaky" was given up on');
    expect(onSteady.signal.aborted).toBe(false);
    expect(set.status()[0]).toMatchObject({ name: "flaky", drained: true, answers: false });
    expect(leased(await set.acquire("img")).name).toBe("steady");
    flaky.answers = true;
    await vi.waitFor(() => expect(returned).toEqual(["flaky"]), { timeout: 3 * 3 * ENGINE_HEALTH_INTERVAL_MS });
    expect(set.status()[0]).toMatchObject({ drained: false, answers: true });
  });

  it("names the engine when a Run's own call finds it gone before the pings drain it (its wait broke with EPIPE)", async () => {
    const broken = Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
    const engine = { ...stubEngine({ answers: true, images: ["img"] }), wait: async () => Promise.reject(broken) } as unknown as Engine;
    const set = setOf({ name: "acb", engine });
    const lease = leased(await set.acquire("img"));
    const failed = await lease.engine.wait("id").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(lease.signal.aborted).toBe(false);
    expect(describeEngineError("wait", failed, "img")).toBe(
      'the engine "acb" stopped answering (EPIPE during wait): the Run on it was ended, and no new Run goes there until it answers again',
    );
    // An engine that answers but refuses is still the engine's refusal, not a lost engine.
    const refusing = {
      ...stubEngine({ answers: true, images: ["img"] }),
      start: async () => Promise.reject(Object.assign(new Error("no"), { statusCode: 500, json: { message: "no such thing" } })),
    } as unknown as Engine;
    const other = leased(await setOf({ name: "r", engine: refusing }).acquire("img"));
    const refused = await other.engine.start("id").then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(describeEngineError("start", refused, "img")).toBe("the engine refused start: no such thing");
  });

  it("refuses a list that cannot mean anything, naming the entry", () => {
    const engine = stubEngine({ answers: true, images: [] });
    expect(() => createEngineSet([])).toThrow("engines [] is not a list of engines; pass [{ name, engine }] with one entry at the least");
    expect(() => createEngineSet([{ name: "a b", engine }])).toThrow('engines[0].name "a b" is not a usable name');
    expect(() =>
      createEngineSet([
        { name: "a", engine },
        { name: "a", engine },
      ]),
    ).toThrow('engines[1].name "a" is taken by an earlier engine');
    expect(() => createEngineSet([{ name: "a", engine, maxConcurrentRuns: 0 }])).toThrow("engines[0].maxConcurrentRuns 0 is out of range");
  });
});

describe("a runtime given several engines", () => {
  it("refuses them with one engine, a docker connection or a warm pool", async () => {
    const { createAgentContainerRuntime } = await import("./runtime.js");
    const engines = setOf({ name: "a", engine: stubEngine({ answers: true, images: ["img"] }) });
    const base = { container: { image: "img" }, run: () => ({ args: [], stdin: "", outcome: async () => ({ ok: true }) }), engines };
    expect(() => createAgentContainerRuntime({ ...base, engine: stubEngine({ answers: true, images: [] }) })).toThrow(
      "engines is given with engine or docker; pass the engines as one set (createEngineSet), or one engine, not both",
    );
    expect(() => createAgentContainerRuntime({ ...base, pool: { size: 1 } })).toThrow("pool is given with engines; a warm pool is made on one engine");
    expect(() => createAgentContainerRuntime({ ...base, engines: [] as unknown as EngineSet })).toThrow("engines [] is not an engine set");
  });
});

describe("the sweep over several engines", () => {
  it("sweeps the engines that answer and does not wait on one that does not", async () => {
    const { createAgentContainerRuntime } = await import("./runtime.js");
    const { pino } = await import("pino");
    const listed: string[] = [];
    const up = {
      ...(stubEngine({ answers: true, images: ["img"] }) as unknown as Record<string, unknown>),
      listByLabel: async () => {
        listed.push("up");
        return [];
      },
      listNetworksByLabel: async () => [],
      listVolumesByLabel: async () => [],
    } as unknown as Engine;
    const down = {
      ...(stubEngine({ answers: false, images: ["img"] }) as unknown as Record<string, unknown>),
      listByLabel: () => new Promise(() => undefined),
    } as unknown as Engine;
    const engines = setOf({ name: "down", engine: down }, { name: "up", engine: up });
    const runtime = createAgentContainerRuntime({
      container: { image: "img", logger: pino({ level: "silent" }) },
      run: () => ({ args: [], stdin: "", outcome: async () => ({ ok: true }) }),
      engines,
    });
    const started = performance.now();
    expect(await runtime.sweep()).toMatchObject({ removed: [] });
    expect(performance.now() - started).toBeLessThan(3 * ENGINE_HEALTH_INTERVAL_MS);
    expect(listed).toEqual(["up"]);
  });
});
