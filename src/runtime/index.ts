/**
 * The runtime: an Agent Container declaration composed once, run for real in one fresh
 * locked-down container per Run through the engine seam; stopping, ownership labels and the sweep
 * of what a gone process left. The plan contract, the declaration and the engine are their own
 * folders' names (src/plan, src/container, src/engine); this door exports only the runtime's.
 *
 * ```ts
 * const runtime = createAgentContainerRuntime({
 *   container: { image: "agentcage-test:latest", env: { API_KEY: secret } },
 *   run: (prompt) => ({ args: ["sample-agent"], stdin: prompt.text, outcome: readJsonLines }),
 * });
 * console.log(runtime.commandFor({ text: "hi" }).redactedArgs.join(" "));
 * const outcome = await runtime.run({ text: "hi" }, { timeoutSeconds: 60 });
 * ```
 */
export type { AgentContainerRuntime, RuntimeOptions } from "./runtime.js";
export type { ManifestOptions } from "./runtime-command.js";
export type { PoolOptions, PoolStats } from "./pool.js";
export { DEFAULT_POOL_IDLE_SECONDS, MAX_POOL_IDLE_SECONDS, MAX_POOL_SIZE } from "./pool.js";
export { POOL_LABEL } from "./pool-member.js";
export type { HeadStartPlan } from "./pool-member.js";
export { tmpfsSecretCommand } from "./pool-launcher.js";
export type { PlacedRun, RunOptions, SessionStoreOptions } from "./run-options.js";
export type { RunFiles, WriteBound } from "./run.js";
export type { SweepResult } from "./sweep.js";
export type { RunNetwork } from "./run-network.js";
export type { RunVolumeKind } from "./out-volume.js";
export type { KubernetesBackend } from "./kube-backend.js";
export type { BackendAsk, BackendRefusals, RunBackend } from "./run-backend.js";
export type { EngineLease, EngineSet, EngineStatus, NamedEngine } from "./engine-set.js";
export type { EngineCheck, RuntimeCheck } from "./runtime-check.js";
export type { Degradation, DegradationKind, DegradationReport, Degradations, DegradationView } from "./degradations.js";
export { createDegradations, DEGRADATION_KINDS } from "./degradations.js";
export { routesOfRange, runNetworkRangeClash } from "./range-clash.js";
export { createAgentContainerRuntime } from "./runtime.js";
export { chooseRunBackend, refusalsOf } from "./run-backends.js";
export { RUN_FILES } from "./runtime-options.js";
export { createEngineSet } from "./engine-set.js";
export { engineSetOf, parseEngineSpec } from "./engine-specs.js";
export { newRunId } from "./run-id.js";
export { isRunId } from "./run-request.js";
export { runNetworkName } from "./run-network.js";
export { DEFAULT_RUN_NETWORK_RANGE, parseRange as checkRunNetworkRange } from "./run-addresses.js";
export { outVolumeName, runVolumeName, volumeHolderName } from "./out-volume.js";
export { refusedOutcome } from "./end-reason.js";
export { describeValue, EarlyEnd, RunRequestError } from "./misuse.js";
export { newRuntimeSessionId, orphanedBecause, ownershipFromLabels, ownershipLabels, thisProcess } from "./ownership.js";
export { bounded } from "./stop.js";
export * as limits from "./limits.js";
