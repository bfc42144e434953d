// The Engine Set: several engines, their specs, health and leases, and the sweep across them.
// Invariant: exports only, no code.
export type { EngineLease, EngineSet, EngineStatus, NamedEngine } from "./engine-set.js";
export { createEngineSet } from "./engine-set.js";
export { engineSetOf, parseEngineSpec } from "./engine-specs.js";
export { sweepEngines } from "./sweep-engines.js";
