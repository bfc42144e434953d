/**
 * The Staging Directory: one directory per Run with the caller's inputs in `work/` (read-only),
 * the agent's `out/`, and the Run record; and the Harvest of `out/` back to the caller.
 *
 * ```ts
 * const result = await harvest("/srv/agentcage/0123456789abcdef/work/out", "/srv/results/review-42");
 * if (!result.ok) console.error(result.refusal.message);
 * ```
 */
export type { RunInputs } from "./inputs.js";
export type { RunDirectory } from "./layout.js";
export type { RunInfo } from "./prepare.js";
export { StagingError } from "./inputs.js";
export { prepareRunDirectory } from "./prepare.js";
export { runDirectory, stagedMounts, DEFAULT_AGENT_WORKDIR } from "./layout.js";
export { sweepRunDirectories } from "./sweep.js";
export * from "./harvest/index.js";
export * as stagingLimits from "./limits.js";
