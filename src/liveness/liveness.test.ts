import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { describeBound, GoneError, loadFactor, MAX_LOAD_FACTOR, patientTimer, readLoadWith, scaledMs, whileAlive, withinPatience } from "./index.js";

let load = { runnable: 0, average: 0, cores: 2 };
let restore: () => void;
beforeEach(() => {
  load = { runnable: 0, average: 0, cores: 2 };
  restore = readLoadWith(() => load);
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
  restore();
});

describe("the load factor", () => {
  it("is 1 on an idle machine and never less", () => {
    expect(loadFactor()).toBe(1);
    load = { runnable: 1, average: 0.5, cores: 2 };
    expect(loadFactor()).toBe(1);
  });

  it("follows the larger of the tasks runnable now and the minute's average, per core", () => {
    load = { runnable: 12, average: 3, cores: 2 };
    expect(loadFactor()).toBe(6);
    load = { runnable: 0, average: 240, cores: 2 };
    expect(loadFactor()).toBe(120);
    expect(scaledMs(2000)).toBe(240_000);
  });

  it("is capped, so a reading gone wrong cannot make a wait endless", () => {
    load = { runnable: 1e9, average: 0, cores: 1 };
    expect(loadFactor()).toBe(MAX_LOAD_FACTOR);
  });

  it("reads this machine for real when nobody stands in for it", () => {
    restore();
    const factor = loadFactor();
    expect(factor).toBeGreaterThanOrEqual(1);
    expect(factor).toBeLessThanOrEqual(MAX_LOAD_FACTOR);
  });
});

describe("a patient bound", () => {
  it("ends at its idle bound on an idle machine", async () => {
    const expired = vi.fn();
    patientTimer(1000, expired);
    await vi.advanceTimersByTimeAsync(999);
    expect(expired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toHaveBeenCalledWith({ idleMs: 1000, boundMs: 1000, waitedMs: 1000 });
  });

  it("stretches with the load it finds when it checks", async () => {
    const expired = vi.fn();
    patientTimer(1000, expired);
    load = { runnable: 8, average: 0, cores: 2 };
    await vi.advanceTimersByTimeAsync(3999);
    expect(expired).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(expired).toHaveBeenCalledWith({ idleMs: 1000, boundMs: 4000, waitedMs: 4000 });
  });

  it("keeps stretching while the load grows, and ends once it falls", async () => {
    const expired = vi.fn();
    patientTimer(1000, expired);
    load = { runnable: 4, average: 0, cores: 2 };
    await vi.advanceTimersByTimeAsync(1500);
    load = { runnable: 20, average: 0, cores: 2 };
    await vi.advanceTimersByTimeAsync(5000);
    expect(expired).not.toHaveBeenCalled();
    load = { runnable: 0, average: 0, cores: 2 };
    await vi.advanceTimersByTimeAsync(4000);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it("says what it was when idle and what the load made it", () => {
    expect(describeBound({ idleMs: 20_000, boundMs: 20_000 })).toBe("20000 ms");
    expect(describeBound({ idleMs: 20_000, boundMs: 62_000 })).toBe("20000 ms (62000 ms at this machine's load of 3.1 per core)");
  });

  it("gives the work's answer when it comes in time, and the late error when it does not", async () => {
    await expect(withinPatience(Promise.resolve(7), 1000, () => new Error("late"))).resolves.toBe(7);
    const never = new Promise<number>(() => undefined);
    const waiting = withinPatience(never, 1000, (hit) => new Error(`late after ${hit.waitedMs}`));
    const seen = expect(waiting).rejects.toThrow("late after 1000");
    await vi.advanceTimersByTimeAsync(1000);
    await seen;
  });
});

describe("waiting while a peer lives", () => {
  it("waits however long a live peer takes, telling each slow check", async () => {
    let answer: (value: string) => void = () => undefined;
    const work = new Promise<string>((resolve) => (answer = resolve));
    const onSlow = vi.fn();
    const gone = vi.fn(async () => undefined);
    const waiting = whileAlive(work, { gone, checkEveryMs: 1000, onSlow });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(gone).toHaveBeenCalledTimes(60);
    expect(onSlow).toHaveBeenCalledTimes(60);
    answer("metered");
    await expect(waiting).resolves.toBe("metered");
  });

  it("ends as soon as a check shows the peer gone, with the peer's own words", async () => {
    const alive = { now: true };
    const waiting = whileAlive(new Promise(() => undefined), {
      gone: async () => (alive.now ? undefined : "is not running (exit code 137)"),
      checkEveryMs: 1000,
    });
    const seen = expect(waiting).rejects.toEqual(new GoneError("is not running (exit code 137)"));
    await vi.advanceTimersByTimeAsync(5000);
    alive.now = false;
    await vi.advanceTimersByTimeAsync(1000);
    await seen;
  });

  it("passes on the work's own failure, and asks nothing once it settled", async () => {
    const gone = vi.fn(async () => "gone");
    await expect(whileAlive(Promise.reject(new Error("refused")), { gone, checkEveryMs: 1000 })).rejects.toThrow("refused");
    await vi.advanceTimersByTimeAsync(5000);
    expect(gone).not.toHaveBeenCalled();
  });

  it("checks less often on a loaded machine", async () => {
    load = { runnable: 10, average: 0, cores: 2 };
    const gone = vi.fn(async () => undefined);
    void whileAlive(new Promise(() => undefined), { gone, checkEveryMs: 1000 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(gone).toHaveBeenCalledTimes(2);
  });
});
