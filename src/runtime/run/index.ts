// The steps of a Run and the state they share: prepare, stage, plan, compose, network, volumes,
// the claim of a warm member, record, finish and harvest. Invariant: exports only, no code.
export { composeRun, containerDeadlineSeconds, holderSecondsAfter } from "./compose.js";
export type { PlannedRun } from "./plan.js";
export { checkPlan, planRun } from "./plan.js";
export { claimMember, claimOf } from "./pool-claim.js";
export { openRecord } from "./record.js";
export { finishStagedRun } from "./run-finish.js";
export { declaredSecrets, runMasker } from "./run-masker.js";
export { closeNetwork, openNetwork } from "./run-network-step.js";
export type { PlacedRun, RunOptions, SessionStoreOptions } from "./run-options.js";
export { refuseBeforeStaging, stageRunDirectory } from "./run-prepare.js";
export { checkRunRequest, checkRunSecrets, isRunId, usableRunId } from "./run-request.js";
export type { LaunchedRun, RunContext, RunFiles, RunLauncher, StepState, StagedRun, WriteBound } from "./run-state.js";
export { createStepState, endEarly, maskedMessage, timeLeftMs } from "./run-state.js";
export { closeVolumes, collectVolumes, openVolumes, runVolumeNames, volumeKinds, volumeSpecs } from "./run-volumes.js";
