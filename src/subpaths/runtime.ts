/**
 * `agentcage/runtime`: what the runtime's and the runner's advanced options take and give back:
 * the engine seam (an Engine of one's own, another Docker engine by address), several engines as
 * one set, the warm pool's figures, the board of degradations, the doctor's probes, a Run's trace
 * and the masker. A Run on one local Docker engine needs none of it: the root has that.
 *
 * ```ts
 * import { createAgentRunner } from "agentcage";
 * import { createEngineSet, engineAt, parseEngineAddress } from "agentcage/runtime";
 *
 * const engines = createEngineSet([
 *   { name: "a", engine: engineAt(parseEngineAddress("unix:///var/run/docker.sock", "engines")), maxConcurrentRuns: 4 },
 *   { name: "b", engine: engineAt(parseEngineAddress("tcp://10.0.0.2:2376", "engines")), maxConcurrentRuns: 8 },
 * ]);
 * const agents = createAgentRunner({ image: "agentcage-agent:latest", engines });
 * ```
 */

// The engine seam: what a Run asks of a container engine, Docker's through dockerode.
export type {
  ContainerExec,
  ContainerExitEvent,
  ContainerMount,
  ContainerState,
  ContainerStreams,
  Engine,
  EngineAddress,
  EngineComponent,
  EngineFacts,
  EngineRuntime,
  ImageBuildSpec,
  ImageFacts,
  ListedContainer,
  ListedNetwork,
  ListedVolume,
  MemoryVolumeSpec,
  NetworkSpec,
} from "../engine/index.js";
export { createDockerEngine, describeEngineAddress, engineAt, parseEngineAddress } from "../engine/index.js";
export type { ComposedSpec, ContainerDeadline, ExtraOptions, ValidatedContainer } from "../container/index.js";
export type { MountSpec } from "../mounts/index.js";

// Several engines, the warm pool, the degradations board, the runtime's check and a Run's files.
export type {
  Degradation,
  DegradationKind,
  DegradationReport,
  Degradations,
  DegradationView,
  EngineCheck,
  EngineLease,
  EngineSet,
  EngineStatus,
  HeadStartPlan,
  ManifestOptions,
  NamedEngine,
  PlacedRun,
  PoolOptions,
  PoolStats,
  RunFiles,
  RunNetwork,
  RuntimeCheck,
  RunVolumeKind,
  SessionStoreOptions,
  WriteBound,
} from "../runtime/index.js";
export {
  DEFAULT_POOL_IDLE_SECONDS,
  DEGRADATION_KINDS,
  MAX_POOL_IDLE_SECONDS,
  MAX_POOL_SIZE,
  POOL_LABEL,
  createDegradations,
  createEngineSet,
  engineSetOf,
} from "../runtime/index.js";

// The doctor's probes: the engine's facts, an image, a container's mounts, the Staging Directory.
export type {
  EngineConnection,
  EngineFailure,
  EngineReport,
  ImageReport,
  MountsReport,
  StagingProbe,
  StagingProbeFailure,
  StagingProbeOptions,
} from "../probes/index.js";
export { containerMounts, inspectEngine, inspectImage, probeStagingDirectory } from "../probes/index.js";

// A Run's trace, the masker, a stream's JSON lines, and the bound a slow peer was given.
export type { ModelCallFacts, RunEnd, RunFacts, RunStep, RunTrace, TraceHeaders } from "../trace/index.js";
export type { RunTraceContext } from "../runner/index.js";
export { REDACTED, createMasker } from "../redact/index.js";
export type { FramedLine } from "../plan/index.js";
export { jsonLines } from "../plan/index.js";
export type { HitBound } from "../liveness/index.js";
