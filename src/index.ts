/**
 * agentcage: run an AI coding-agent CLI in one fresh, locked-down container per Run and turn
 * what it prints into a typed Outcome. See README.md for a runnable example; `agentcage/testing`
 * (src/testing) builds agentcage's images and starts the stand-in model for offline tests.
 * Every type a public signature names is exported here (test/package/pack.test.ts checks it).
 */
export * from "./runtime/index.js";
export * from "./agents/index.js";
export type { ComposedSpec, ContainerDeadline, ExtraOptions, ValidatedContainer } from "./container/index.js";
export type { Mount, MountSpec, MountTable } from "./mounts/index.js";
export { MountTableError, mountArguments, mountSpecs, validateMountTable } from "./mounts/index.js";
export type { HarvestLimits, HarvestOptions, HarvestRecovery } from "./staging/index.js";
export { harvest, HarvestArgumentError, recoverHarvest, StagingError, stagingLimits } from "./staging/index.js";
export type { ContainerState, ContainerStreams, ListedContainer } from "./engine/index.js";
export { createDockerEngine } from "./engine/index.js";
export type { ErrorCode } from "./errors/index.js";
export { AgentcageError, ERROR_CODES } from "./errors/index.js";
export type { Masker } from "./redact/index.js";
export { createMasker } from "./redact/index.js";
