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
export type { PoolOptions, PoolStats } from "./pool/index.js";
export { DEFAULT_POOL_IDLE_SECONDS, MAX_POOL_IDLE_SECONDS, MAX_POOL_SIZE } from "./pool/index.js";
export { POOL_LABEL } from "./pool/index.js";
export type { HeadStartPlan } from "./pool/index.js";
export { tmpfsSecretCommand } from "./pool/index.js";
export type { PlacedRun, RunOptions, SessionStoreOptions } from "./run/index.js";
export type { RunFiles, WriteBound } from "./run.js";
export type { SweepResult } from "./ownership/index.js";
export type { RunNetwork } from "./network/index.js";
export type { RunVolumeKind } from "./volumes/index.js";
export type { KubernetesBackend } from "./pods/index.js";
export type { BackendAsk, BackendRefusals, RunBackend } from "./run-backend.js";
export type { BackendOptions, PerBackend } from "./run-backends.js";
export type { EngineLease, EngineSet, EngineStatus, NamedEngine } from "./engines/index.js";
export type { EngineCheck, RuntimeCheck } from "./runtime-check.js";
export type { Degradation, DegradationKind, DegradationReport, Degradations, DegradationView } from "./degradations.js";
export { createDegradations, DEGRADATION_KINDS } from "./degradations.js";
export { routesOfRange, runNetworkRangeClash } from "./network/index.js";
export { createAgentContainerRuntime } from "./runtime.js";
export { chooseRunBackendWith, perBackend, refusalsOf } from "./run-backends.js";
export { RUN_FILES } from "./runtime-options.js";
export { createEngineSet } from "./engines/index.js";
export { engineSetOf, parseEngineSpec } from "./engines/index.js";
export { newRunId } from "./run-id.js";
export { isRunId } from "./run/index.js";
export { runNetworkName } from "./network/index.js";
export { DEFAULT_RUN_NETWORK_RANGE, parseRange as checkRunNetworkRange } from "./network/index.js";
export { outVolumeName, runVolumeName, volumeHolderName } from "./volumes/index.js";
export { refusedOutcome } from "./end-reason.js";
export { describeValue, EarlyEnd, RunRequestError } from "./misuse.js";
export { newRuntimeSessionId, orphanedBecause, ownershipFromLabels, ownershipLabels, thisProcess } from "./ownership/index.js";
export { bounded } from "./stop.js";
/** Every bound a Run is held to, with the unit in each name (`MAX_TIMEOUT_SECONDS`, `DEFAULT_MEMORY_BYTES`): what an option's range and default are. */
export * as limits from "./limits.js";
