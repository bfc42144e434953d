// For tests of what happens at a bound that is not a user's deadline: the bound as on an idle
// machine, whatever this machine's load, so a test of the engine that never answers takes what it
// took when it was written. How the load stretches a bound is src/liveness' own tests' to prove.

import { afterAll, afterEach, beforeAll, beforeEach, vi } from "vitest";
import { readLoadWith } from "../../src/liveness/index.js";

/** Reads the load as idle (a factor of 1) for every test of the file or describe it is called in. */
export function atIdleLoad(): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = readLoadWith(() => ({ runnable: 0, average: 0, cores: 1 }));
  });
  afterAll(() => restore?.());
}

/**
 * For tests of a wait driven by fake timers: each test of the file or describe it is called in runs
 * with setTimeout, clearTimeout and performance faked, and the load read as idle.
 */
export function fakeTimersAtIdleLoad(): void {
  let restore: (() => void) | undefined;
  beforeEach(() => {
    restore = readLoadWith(() => ({ runnable: 0, average: 0, cores: 1 }));
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
    restore?.();
  });
}
