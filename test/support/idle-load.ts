// For tests of what happens at a bound that is not a user's deadline: the bound as on an idle
// machine, whatever this machine's load, so a test of the engine that never answers takes what it
// took when it was written. How the load stretches a bound is src/liveness' own tests' to prove.

import { afterAll, beforeAll } from "vitest";
import { readLoadWith } from "../../src/liveness/index.js";

/** Reads the load as idle (a factor of 1) for every test of the file or describe it is called in. */
export function atIdleLoad(): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    restore = readLoadWith(() => ({ runnable: 0, average: 0, cores: 1 }));
  });
  afterAll(() => restore?.());
}
