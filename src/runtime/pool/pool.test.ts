// When the warm pool makes a claimed member's replacement, against the in-memory fake engine: while
// another member is ready it waits a while (made at once, it competes with the claimed Run's agent
// for the CPU), and when none is ready it is made at once. No daemon needed.

import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createFakeEngine, type FakeEngine } from "../../../test/support/fake-engine.js";
import { createAgentContainerRuntime, type AgentContainerRuntime, type ReaderVerdict } from "../../index.js";

type Collected = ReaderVerdict & { readonly text: string };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const runtimes: Array<AgentContainerRuntime<Collected>> = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

/**
 * A runtime with a pool of `size` on a fake engine whose containers echo their stdin once it ends;
 * it notes when each container was created and when each claim was written.
 */
function pooled(size: number): { runtime: AgentContainerRuntime<Collected>; engine: FakeEngine; createdAt: number[]; claimedAt: number[] } {
  const fake = createFakeEngine({ echoStdin: true });
  const createdAt: number[] = [];
  const claimedAt: number[] = [];
  const engine: FakeEngine = {
    ...fake,
    create: (spec) => {
      createdAt.push(performance.now());
      return fake.create(spec);
    },
  };
  const runtime = createAgentContainerRuntime<Collected>({
    container: { image: "fake:1", logger: pino({ level: "silent" }) },
    run: (prompt) => ({
      args: ["agent"],
      stdin: prompt.text,
      outcome: async (stdout) => {
        const chunks: Buffer[] = [];
        for await (const chunk of stdout) chunks.push(Buffer.from(chunk));
        return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
      },
    }),
    engine,
    pool: { size, onClaim: () => claimedAt.push(performance.now()) },
  });
  runtimes.push(runtime);
  return { runtime, engine, createdAt, claimedAt };
}

const made = (engine: FakeEngine): number => engine.calls.filter((call) => call.startsWith("create ")).length;

async function untilReady(runtime: AgentContainerRuntime<Collected>, ready: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((runtime.pool()?.ready ?? 0) >= ready) return;
    await sleep(10);
  }
  throw new Error(`the pool did not have ${ready} ready within 2 s: ${JSON.stringify(runtime.pool())}`);
}

describe("a claimed member's replacement", () => {
  it("waits about a second while another member is ready, then is made", async () => {
    const { runtime, createdAt, claimedAt } = pooled(2);
    await untilReady(runtime, 2);
    expect(await runtime.run({ text: "hello" })).toMatchObject({ ok: true, warm: true });
    expect(runtime.pool()).toMatchObject({ ready: 1, making: 0 });
    for (let i = 0; i < 300 && createdAt.length < 3; i++) await sleep(10);
    expect(createdAt).toHaveLength(3);
    const [claimed] = claimedAt as [number];
    const waited = (createdAt[2] as number) - claimed;
    // The claim is written a few ms after the member was taken; made at once, the replacement would come before it.
    expect(waited).toBeGreaterThan(500);
    // A second, with 3x slack.
    expect(waited).toBeLessThan(3000);
    await untilReady(runtime, 2);
  });

  it("is made at once when no other member is ready", async () => {
    const { runtime, engine } = pooled(1);
    await untilReady(runtime, 1);
    expect(await runtime.run({ text: "hello" })).toMatchObject({ ok: true, warm: true });
    expect(made(engine)).toBe(2);
  });

  it("is made at once, with the one still waiting, when the last ready member is claimed meanwhile", async () => {
    const { runtime, engine } = pooled(2);
    await untilReady(runtime, 2);
    expect(await runtime.run({ text: "one" })).toMatchObject({ ok: true, warm: true });
    expect(made(engine)).toBe(2);
    expect(await runtime.run({ text: "two" })).toMatchObject({ ok: true, warm: true });
    expect(made(engine)).toBe(4);
    await untilReady(runtime, 2);
  });

  it("is not made by a pool closed while it waits", async () => {
    const { runtime, engine } = pooled(2);
    await untilReady(runtime, 2);
    expect(await runtime.run({ text: "hello" })).toMatchObject({ ok: true, warm: true });
    await runtime.close();
    await sleep(1500);
    expect(made(engine)).toBe(2);
    expect(engine.existing()).toEqual([]);
  });
});

describe("a member whose container is slow to say how it is", () => {
  function withBrokenWaits(inspected: "runs" | "stopped") {
    const fake = createFakeEngine({ echoStdin: true });
    let broken = 0;
    const engine: FakeEngine = {
      ...fake,
      // The first waits break as a busy engine's connection may: reset, the container still running.
      wait: (id) => (broken++ < 2 ? Promise.reject(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })) : fake.wait(id)),
      inspect: async (id) => {
        const state = await fake.inspect(id);
        return inspected === "runs" || state === undefined ? state : { ...state, running: false };
      },
    };
    const runtime = createAgentContainerRuntime<Collected>({
      container: { image: "fake:1", logger: pino({ level: "silent" }) },
      run: (prompt) => ({ args: ["agent"], stdin: prompt.text, outcome: async () => ({ ok: true, text: prompt.text }) }),
      engine,
      pool: { size: 1 },
    });
    runtimes.push(runtime);
    return runtime;
  }

  it("is kept when its wait breaks while the engine says it runs, and serves a Run warm", async () => {
    const runtime = withBrokenWaits("runs");
    await untilReady(runtime, 1);
    await sleep(1500);
    expect(runtime.pool()).toMatchObject({ replaced: 0, ready: 1 });
    expect(await runtime.run({ text: "hello" })).toMatchObject({ ok: true, warm: true });
  });

  it("is replaced when its wait breaks and the engine says it no longer runs", async () => {
    const runtime = withBrokenWaits("stopped");
    await untilReady(runtime, 1);
    for (let i = 0; i < 200 && (runtime.pool()?.replaced ?? 0) === 0; i++) await sleep(10);
    expect(runtime.pool()?.replaced).toBeGreaterThan(0);
  });
});

describe("a pool closed while members wait their network's turn", () => {
  it("counts them as left, not as members that could not be made", async () => {
    const fake = createFakeEngine({ echoStdin: true });
    // Slow enough that members past NETWORK_CALLS_AT_ONCE are still waiting their turn at close().
    const engine: FakeEngine = {
      ...fake,
      createNetwork: async (spec) => {
        await sleep(300);
        return fake.createNetwork(spec);
      },
    };
    const runtime = createAgentContainerRuntime<Collected>({
      container: { image: "fake:1", logger: pino({ level: "silent" }) },
      run: () => ({ args: ["agent"], stdin: "", outcome: async () => ({ ok: true, text: "" }) }),
      engine,
      pool: { size: 4, network: { kind: "internal" } },
    });
    await sleep(50);
    await runtime.close();
    expect(runtime.pool()).toMatchObject({ failures: 0 });
    expect(runtime.pool()?.lastFailure).toBeUndefined();
  });
});
