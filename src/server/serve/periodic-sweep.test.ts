// The periodic sweep of a running service, on fake timers: one sweep each interval, never two at
// once, a failure logged and tried again at the next tick, and stop() ends the ticks and waits.

import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startPeriodicSweep } from "./periodic-sweep.js";

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

function capture() {
  const lines: Record<string, unknown>[] = [];
  return { logger: pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }), lines };
}

describe("the periodic sweep", () => {
  it("sweeps once each interval, and no more after stop()", async () => {
    const sweep = vi.fn(async () => undefined);
    const periodic = startPeriodicSweep(sweep, 1000, capture().logger);
    expect(sweep).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(3500);
    expect(sweep).toHaveBeenCalledTimes(3);
    await periodic.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(sweep).toHaveBeenCalledTimes(3);
  });

  it("skips a tick while the last sweep is still going, and stop() waits for it", async () => {
    let finish!: () => void;
    const sweep = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const periodic = startPeriodicSweep(sweep, 1000, capture().logger);
    await vi.advanceTimersByTimeAsync(4500);
    expect(sweep).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it("logs a sweep that failed and sweeps again at the next tick", async () => {
    const { logger, lines } = capture();
    const sweep = vi.fn().mockRejectedValueOnce(new Error("the engine does not answer")).mockResolvedValue(undefined);
    const periodic = startPeriodicSweep(sweep, 1000, logger);
    await vi.advanceTimersByTimeAsync(2500);
    expect(sweep).toHaveBeenCalledTimes(2);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, err: "the engine does not answer", msg: "the periodic sweep failed; it runs again at the next interval" }),
    );
    await periodic.stop();
  });
});
