// The proxy's start wait, with peers made of functions and the machine's load pinned: it waits past
// any bound while the container lives, telling how long; it ends as soon as a check shows the
// container gone (after a refused ask, at the end of its output, or at the periodic check), and at
// a cancel. Nothing here needs an engine.

import { describe, expect, it, vi } from "vitest";
import { fakeTimersAtIdleLoad } from "../../test/support/idle-load.js";
import { START_CHECK_MS, untilProxyListens } from "./proxy-start.js";

// An idle machine's bounds, whatever this one is doing: the load's own effect is src/liveness' tests'.
fakeTimersAtIdleLoad();

describe("the wait for a proxy's start", () => {
  it("waits minutes while its container lives, telling how long, and ends when it listens", async () => {
    let listens = false;
    const waited: number[] = [];
    const ending = untilProxyListens({ listening: async () => listens, gone: async () => undefined, pollMs: 50, onWaiting: (ms) => waited.push(ms) });
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    listens = true;
    await vi.advanceTimersByTimeAsync(50);
    await expect(ending).resolves.toEqual({ kind: "listening" });
    expect(waited.length).toBeGreaterThanOrEqual((5 * 60_000) / START_CHECK_MS - 1);
    expect(waited.at(-1)).toBeGreaterThanOrEqual(4 * 60_000);
  });

  it("keeps waiting while the engine cannot say (gone answers nothing) and asks fail", async () => {
    const gone = vi.fn(async () => undefined);
    const ending = untilProxyListens({ listening: async () => Promise.reject(new Error("no bridge yet")), gone, pollMs: 200 });
    let settled = false;
    void ending.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(120_000);
    expect(settled).toBe(false);
    expect(gone).toHaveBeenCalled();
  });

  it("ends at once when an ask is refused and the container is shown gone, with what the ask said", async () => {
    let alive = true;
    const ending = untilProxyListens({
      listening: async () => Promise.reject(new Error("the engine refused exec")),
      gone: async () => (alive ? undefined : "exited (code 137)"),
      pollMs: 200,
    });
    await vi.advanceTimersByTimeAsync(30_000);
    alive = false;
    await vi.advanceTimersByTimeAsync(400);
    await expect(ending).resolves.toEqual({ kind: "gone", why: "exited (code 137)", lastError: "the engine refused exec" });
  });

  it("asks at once when the container's output ends, and again soon after, when a plain not-yet says nothing", async () => {
    let ended!: () => void;
    let alive = true;
    const gone = vi.fn(async () => (alive ? undefined : "exited (code 1)"));
    const ending = untilProxyListens({ listening: async () => false, gone, pollMs: 50, ended: new Promise<void>((resolve) => (ended = resolve)) });
    await vi.advanceTimersByTimeAsync(1000);
    expect(gone).not.toHaveBeenCalled();
    ended();
    await vi.advanceTimersByTimeAsync(0);
    expect(gone).toHaveBeenCalledTimes(1);
    // The engine says the container ended a moment after its output did.
    alive = false;
    await vi.advanceTimersByTimeAsync(50);
    await expect(ending).resolves.toEqual({ kind: "gone", why: "exited (code 1)", lastError: "" });
  });

  it("finds a container gone at its periodic check when nothing else tells", async () => {
    let alive = true;
    const ending = untilProxyListens({ listening: async () => false, gone: async () => (alive ? undefined : "was removed"), pollMs: 50 });
    await vi.advanceTimersByTimeAsync(60_000);
    alive = false;
    await vi.advanceTimersByTimeAsync(START_CHECK_MS);
    await expect(ending).resolves.toMatchObject({ kind: "gone", why: "was removed" });
  });

  it("ends at a cancel with its reason, and asks no more", async () => {
    const controller = new AbortController();
    const listening = vi.fn(async () => false);
    const ending = untilProxyListens({ listening, gone: async () => undefined, pollMs: 50, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort(new Error("cancelled with Ctrl-C"));
    await expect(ending).resolves.toEqual({ kind: "cancelled", why: "cancelled with Ctrl-C" });
    const asked = listening.mock.calls.length;
    await vi.advanceTimersByTimeAsync(1000);
    expect(listening.mock.calls.length).toBeLessThanOrEqual(asked + 1);
  });
});
