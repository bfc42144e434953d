// What one agent runner shares among its Runs, made once by createAgentRunner: its settings, the
// runtime over its Agent Container, the one listener for the egress proxy's breaches, its head starts.
// Invariant: made at construction and never replaced; a Run's own state lives in its steps.

import type { RunnerRuntime } from "./agent-container.js";
import type { BreachListener } from "./breaches.js";
import type { HeadStarts } from "./head-start.js";
import type { RunnerSettings } from "./settings.js";

export type RunnerContext = {
  readonly settings: RunnerSettings;
  readonly runtime: RunnerRuntime;
  readonly breaches: BreachListener;
  /** What the pool's members start ahead, learnt from the Runs; undefined: no head start (no pool, or not under `model`). */
  readonly headStarts: HeadStarts | undefined;
};
