// What one agent runner shares among its Runs, made once by createAgentRunner: its settings, the
// runtime over its Agent Container, and the one listener for the egress proxy's breaches.
// Invariant: made at construction and never replaced; a Run's own state lives in its steps.

import type { RunnerRuntime } from "./agent-container.js";
import type { BreachListener } from "./breaches.js";
import type { RunnerSettings } from "./settings.js";

export type RunnerContext = {
  readonly settings: RunnerSettings;
  readonly runtime: RunnerRuntime;
  readonly breaches: BreachListener;
};
