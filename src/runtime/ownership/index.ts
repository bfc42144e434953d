// Whose a container, network or volume is (ownership labels), and the sweep of what its owner left.
// Invariant: exports only, no code.
export type { Ownership } from "./ownership.js";
export { newRuntimeSessionId, orphanedBecause, ownershipFromLabels, ownershipLabels, thisProcess } from "./ownership.js";
export type { SweepResult } from "./sweep.js";
export { sweep } from "./sweep.js";
