import { afterEach, describe, expect, it, vi } from "vitest";
import { describeEngineError, type Engine } from "../engine/index.js";
import { readLoadWith } from "../liveness/index.js";
import { createEngineSet, type EngineLease, type EngineSet } from "./engines/index.js";
import { ENGINE_DRAIN_AFTER_FAILED_PINGS, ENGINE_HEALTH_INTERVAL_MS, ENGINE_PING_TIMEOUT_MS } from "./limits.js";
import { EarlyEnd } from "./misuse.js";
import { checkEngineSet } from "./runtime-check.js";

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

/** An engine that answers, is frozen (its pings wait until it thaws, as a stopped dockerd's), or refuses (as a killed one's socket). */
function freezableEngine(images: string[]) {
  const state = { mode: "answers" as "answers" | "frozen" | "refused", pingsSent: 0 };
  const waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  const engine = {
    create: async () => "id",
    ping: () => {
      state.pingsSent += 1;
      if (state.mode === "refused") return Promise.reject(Object.assign(new Error("connect ECONNREFUSED /run/acf.sock"), { code: "ECONNREFUSED" }));
      if (state.mode === "answers") return Promise.resolve();
      return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    hasImage: async (image: string) => images.includes(image),
  } as unknown as Engine;
  const thaw = (): void => {
    state.mode = "answers";
    for (const one of waiting.splice(0)) one.resolve();
  };
  /** Killed while frozen: the pings under way break (the socket closes under them), and new ones are refused. */
  const kill = (): void => {
    state.mode = "refused";
    for (const one of waiting.splice(0)) one.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
  };
  return { engine, state, thaw, kill };
}

describe("an engine that is slow, not gone", () => {
  let restoreLoad: () => void = () => undefined;
  afterEach(() => restoreLoad());
  const fakeTime = (): void => {
    restoreLoad = readLoadWith(() => ({ runnable: 0, average: 0, cores: 2 }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  };

  it("keeps the Runs of an engine whose pings are late however long, counts it slow, and sends one ping at a time", async () => {
    fakeTime();
    const frozen = freezableEngine(["img"]);
    const set = setOf({ name: "frozen", engine: frozen.engine });
    const heard: Array<[string, number]> = [];
    set.onSlow((name, hit) => heard.push([name, hit.boundMs]));
    const lease = leased(await set.acquire("img"));
    frozen.state.mode = "frozen";
    const sentBefore = frozen.state.pingsSent;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(lease.signal.aborted).toBe(false);
    expect(set.status()[0]).toMatchObject({ answers: false, slow: true, drained: false, running: 1 });
    expect(set.status()[0]?.why).toBe(`its ping is late: no answer within ${ENGINE_PING_TIMEOUT_MS} ms; its Runs go on`);
    // Read again with a backoff, each late reading counted and told; the one ping under way is waited for, not sent again.
    const late = set.status()[0]?.latePings ?? 0;
    expect(late).toBeGreaterThanOrEqual(5);
    expect(late).toBeLessThan(120_000 / ENGINE_PING_TIMEOUT_MS);
    expect(heard).toHaveLength(late);
    expect(heard[0]).toEqual(["frozen", ENGINE_PING_TIMEOUT_MS]);
    expect(frozen.state.pingsSent - sentBefore).toBe(1);
    frozen.thaw();
    await vi.advanceTimersByTimeAsync(0);
    expect(set.status()[0]).toMatchObject({ answers: true, slow: false, drained: false });
    expect(set.status()[0]?.why).toBeUndefined();
    expect(lease.signal.aborted).toBe(false);
  });

  it("is ready to a readiness check while slow: it still holds the image it last said it held, and takes Runs", async () => {
    fakeTime();
    const frozen = freezableEngine(["img"]);
    const set = setOf({ name: "frozen", engine: frozen.engine });
    leased(await set.acquire("img"));
    frozen.state.mode = "frozen";
    await vi.advanceTimersByTimeAsync(30_000);
    expect(set.status()[0]).toMatchObject({ slow: true, drained: false });
    const checking = checkEngineSet(set, "img");
    await vi.advanceTimersByTimeAsync(0);
    expect(await checking).toMatchObject({ engine: true, image: true, engines: [expect.objectContaining({ name: "frozen", engine: true, image: true })] });
    frozen.thaw();
  });

  it("drains an engine killed while it was slow, once its socket refuses", async () => {
    fakeTime();
    const frozen = freezableEngine(["img"]);
    const set = setOf({ name: "frozen", engine: frozen.engine });
    const lease = leased(await set.acquire("img"));
    frozen.state.mode = "frozen";
    await vi.advanceTimersByTimeAsync(30_000);
    expect(lease.signal.aborted).toBe(false);
    frozen.kill();
    await vi.advanceTimersByTimeAsync(ENGINE_DRAIN_AFTER_FAILED_PINGS * ENGINE_HEALTH_INTERVAL_MS);
    expect(lease.signal.aborted).toBe(true);
    expect((lease.signal.reason as EarlyEnd).message).toContain('the engine "frozen" stopped answering (connect ECONNREFUSED /run/acf.sock)');
    expect(set.status()[0]).toMatchObject({ drained: true, slow: false });
  });

  it("gives a slow engine a Run only when every prompt one is full, and waits for it rather than refusing when it is the only one", async () => {
    fakeTime();
    const slow = freezableEngine(["img"]);
    const set = setOf(
      { name: "slow", engine: slow.engine, maxConcurrentRuns: 3 },
      { name: "prompt", engine: stubEngine({ answers: true, images: ["img"] }), maxConcurrentRuns: 1 },
    );
    await set.acquire("img").then((lease) => leased(lease).release());
    slow.state.mode = "frozen";
    await vi.advanceTimersByTimeAsync(2 * ENGINE_PING_TIMEOUT_MS);
    expect(set.status()[0]).toMatchObject({ name: "slow", slow: true });
    // The slow one has more free slots, but the prompt one comes first while it has one.
    expect(leased(await set.acquire("img")).name).toBe("prompt");
    expect(leased(await set.acquire("img")).name).toBe("slow");

    // Alone and slow from its first ping, not yet known to hold the image: a Run waits for it, and goes there once it answers.
    const alone = freezableEngine(["img"]);
    alone.state.mode = "frozen";
    const only = setOf({ name: "alone", engine: alone.engine });
    const waiting = only.acquire("img");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(only.status()[0]).toMatchObject({ slow: true, answers: false });
    alone.thaw();
    await vi.advanceTimersByTimeAsync(0);
    expect(leased(await waiting).name).toBe("alone");
  });
});

describe("an engine slow from its first ping", () => {
  let restoreLoad: () => void = () => undefined;
  afterEach(() => restoreLoad());

  it("holds no Run back from an engine that answers, and is swept once it answers after the sweep passed it by", async () => {
    // A busy machine: a ping's bound is 30 s, but the first Run does not wait it out.
    restoreLoad = readLoadWith(() => ({ runnable: 0, average: 20, cores: 2 }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const frozen = freezableEngine(["img"]);
    frozen.state.mode = "frozen";
    const set = setOf({ name: "frozen", engine: frozen.engine }, { name: "prompt", engine: stubEngine({ answers: true, images: ["img"] }) });
    const returned: string[] = [];
    set.onReturn((name) => returned.push(name));
    const placed = set.acquire("img");
    await vi.advanceTimersByTimeAsync(ENGINE_PING_TIMEOUT_MS);
    expect(leased(await placed).name).toBe("prompt");
    const answering = set.answering();
    await vi.advanceTimersByTimeAsync(ENGINE_PING_TIMEOUT_MS);
    expect((await answering).map((one) => one.name)).toEqual(["prompt"]);
    frozen.thaw();
    await vi.advanceTimersByTimeAsync(0);
    expect(returned).toEqual(["frozen"]);
    expect(set.status()[0]).toMatchObject({ answers: true, slow: false });
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
