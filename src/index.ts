/**
 * agentcage: run an AI coding-agent CLI in one fresh, locked-down container per Run and turn
 * what it prints into a typed Outcome. See README.md for a runnable example.
 */
export * from "./runtime/index.js";
export * from "./mounts/index.js";
export * from "./plan/index.js";
export { harvest, StagingError, DEFAULT_AGENT_WORKDIR, stagingLimits } from "./staging/index.js";
export type { HarvestResult, HarvestRefusal, HarvestLimits, RunInputs } from "./staging/index.js";
export type { StagingDeclaration } from "./runtime/agent-container.js";
export * from "./agents/index.js";
