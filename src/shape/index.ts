// The code's shape rules: which folder may import which, and through which door.
// Invariant: shape imports nothing from src/; it only reads source text handed to it.
export { findCircles, findViolations, reachedFrom } from "./confinement.js";
