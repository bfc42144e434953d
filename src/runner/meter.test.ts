import { describe, expect, it, vi } from "vitest";
import { fakeTimersAtIdleLoad } from "../../test/support/idle-load.js";
import type { AgentEvent } from "../agents/index.js";
import type { RunMeter } from "../egress/index.js";
import type { EgressGateway } from "../gateway/index.js";
import { watchMeter } from "./meter.js";
import type { ProxiedRun } from "./network-policy.js";
import { METER_EVENT_INTERVAL_MS, METER_READ_SLOW_MS } from "./limits.js";

const READING: RunMeter = {
  turns: 1,
  tokens: 30,
  usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
  costUsd: 0.001,
  refused: 0,
} as RunMeter;

type Proxy = { meter: (runId: string) => Promise<RunMeter | undefined>; gone: () => Promise<string | undefined> };

function watch(proxy: Proxy, answered = () => false) {
  const events: AgentEvent[] = [];
  const ended: string[] = [];
  let revoked = false;
  const proxied = { runId: "r1", revoked: () => revoked, observe: () => undefined } as unknown as ProxiedRun;
  const handle = watchMeter(
    proxy as unknown as EgressGateway,
    proxied,
    (event) => events.push(event),
    (message) => ended.push(message),
    answered,
  );
  return { events, ended, handle, revoke: () => (revoked = true) };
}

// An idle machine's bounds, whatever this one is doing: the load's own effect is src/liveness' tests'.
fakeTimersAtIdleLoad();

describe("watching the egress proxy's meter", () => {
  it("tells each change as a metered event, one reading at a time", async () => {
    let inFlight = 0;
    let most = 0;
    const proxy: Proxy = {
      meter: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 3 * METER_EVENT_INTERVAL_MS));
        inFlight -= 1;
        return READING;
      },
      gone: async () => undefined,
    };
    const { events, handle } = watch(proxy);
    await vi.advanceTimersByTimeAsync(20 * METER_EVENT_INTERVAL_MS);
    handle.stop();
    expect(most).toBe(1);
    expect(events.filter((event) => event.type === "metered")).toHaveLength(1);
  });

  it("waits for a proxy that is slow but shown alive, however long, telling it once per reading", async () => {
    let answer: (meter: RunMeter) => void = () => undefined;
    const gone = vi.fn(async () => undefined);
    const proxy: Proxy = { meter: () => new Promise((resolve) => (answer = resolve)), gone };
    const { events, ended, handle } = watch(proxy);
    await vi.advanceTimersByTimeAsync(METER_EVENT_INTERVAL_MS + 60 * METER_READ_SLOW_MS);
    expect(gone.mock.calls.length).toBeGreaterThanOrEqual(59);
    expect(ended).toEqual([]);
    expect(events).toEqual([{ type: "egress_slow", waitedSeconds: METER_READ_SLOW_MS / 1000 }]);
    answer(READING);
    await vi.advanceTimersByTimeAsync(1);
    expect(events.at(-1)).toMatchObject({ type: "metered", turns: 1 });
    expect(handle.slowReadings()).toBe(1);
    handle.stop();
  });

  it("asks again, later, after a reading that failed while the proxy lives", async () => {
    const meter = vi.fn(async () => {
      throw new Error("no answer to GET /v1/runs/ID/meter within 15000 ms");
    });
    const { ended, handle } = watch({ meter, gone: async () => undefined });
    await vi.advanceTimersByTimeAsync(60_000);
    handle.stop();
    expect(ended).toEqual([]);
    // Doubling waits: 1, 2, 4, 8, 16, 30 s ... instead of 60 readings.
    expect(meter.mock.calls.length).toBeGreaterThanOrEqual(4);
    expect(meter.mock.calls.length).toBeLessThanOrEqual(7);
  });

  it("ends the Run at once, in the proxy's own words, when the proxy is shown gone", async () => {
    const { ended, handle } = watch({
      meter: async () => {
        throw new Error("connect ECONNREFUSED");
      },
      gone: async () => "refuses connections on its control endpoint (ECONNREFUSED)",
    });
    await vi.advanceTimersByTimeAsync(METER_EVENT_INTERVAL_MS + 1);
    handle.stop();
    expect(ended).toEqual([
      "the egress proxy went away: it refuses connections on its control endpoint (ECONNREFUSED); the Run cannot reach its model without it",
    ]);
  });

  it("ends the Run when a reading that hangs finds the proxy's container stopped", async () => {
    let running = true;
    const { ended, handle } = watch({
      meter: () => new Promise(() => undefined),
      gone: async () => (running ? undefined : "is not running (its container is gone)"),
    });
    await vi.advanceTimersByTimeAsync(METER_EVENT_INTERVAL_MS + 10 * METER_READ_SLOW_MS);
    expect(ended).toEqual([]);
    running = false;
    await vi.advanceTimersByTimeAsync(METER_READ_SLOW_MS);
    handle.stop();
    expect(ended).toEqual(["the egress proxy went away: it is not running (its container is gone); the Run cannot reach its model without it"]);
  });

  it("never ends a Run whose agent has answered, nor one whose token was revoked", async () => {
    const gone = async () => "is not running (its container is gone)";
    const failing = async () => {
      throw new Error("connect ECONNREFUSED");
    };
    const answered = watch({ meter: failing, gone }, () => true);
    const revoked = watch({ meter: failing, gone });
    revoked.revoke();
    await vi.advanceTimersByTimeAsync(10 * METER_EVENT_INTERVAL_MS);
    answered.handle.stop();
    revoked.handle.stop();
    expect(answered.ended).toEqual([]);
    expect(revoked.ended).toEqual([]);
  });

  it("takes a proxy that no longer knows the Run for one that restarted", async () => {
    const { ended, handle } = watch({ meter: async () => undefined, gone: async () => undefined });
    await vi.advanceTimersByTimeAsync(METER_EVENT_INTERVAL_MS + 1);
    handle.stop();
    expect(ended[0]).toContain("no longer knows the Run");
  });
});
