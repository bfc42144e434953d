/**
 * agentcage: run an AI coding-agent CLI in one fresh, locked-down container per Run and turn
 * what it prints into a typed Outcome. See README.md for a runnable example; `agentcage/testing`
 * (src/testing) builds agentcage's images and starts the stand-in model for offline tests.
 * The public API, assembled from each folder's front door: every type a public signature names is
 * exported here (test/package/pack.test.ts checks it).
 */
export { DEFAULT_KEPT_RUN_RETENTION_DAYS, DEFAULT_SESSION_RETENTION_DAYS, MAX_RETENTION_DAYS } from "./container/index.js";
export { HarvestArgumentError, harvest, recoverHarvest } from "./staging/index.js";
export {
  AGENT_CLIS,
  AGENT_EFFORTS,
  AGENT_REASONS,
  AgentRequestError,
  CREDENTIAL_VARIABLES,
  CredentialError,
  agentRequestSchema,
  claudeArgs,
  codexArgs,
  findCredential,
  parseAgentRequest,
  parseClaudeStream,
  parseCodexStream,
  publicEnvironment,
  unheldCaps,
} from "./agents/index.js";
export { AgentContainerError, DEFAULT_AGENT_WORKDIR, ExtraArgsError, OWNER_LABEL, RUN_LABEL, SUPPORTED_EXTRA_FLAGS } from "./container/index.js";
export { connectTarget } from "./egress/index.js";
export { createDockerEngine, describeEngineAddress, engineAt, parseEngineAddress } from "./engine/index.js";
export type { EngineAddress } from "./engine/index.js";
export type { ErrorCode } from "./errors/index.js";
export { AgentcageError, ERROR_CODES } from "./errors/index.js";
export {
  COMPOSE_PROJECT_LABEL,
  COMPOSE_SERVICE_LABEL,
  DEFAULT_EGRESS_IMAGE,
  EGRESS_ALIAS,
  EGRESS_SERVICE,
  connectEgressGateway,
  findDeploymentEgress,
  startEgressGateway,
  startEgressGateways,
  startKubeEgressGateway,
} from "./gateway/index.js";
export type {
  AttachSession,
  ContainerStatus,
  EgressProxyPeer,
  ExecSession,
  ExecStatus,
  KubeApi,
  KubeApiOptions,
  ClusterCheck,
  KubeMetadata,
  LabelSelector,
  PodCollected,
  PodFiles,
  PodManifest,
  PodNetwork,
  PodObject,
  PodOptions,
  PodRunOptions,
  PodRunResult,
  PodSweepOptions,
  RunContainer,
  RunNetworkPolicy,
  RunPod,
  RunSecret,
  SeccompProfile,
} from "./kube/index.js";
export {
  KubernetesError,
  PSS_ENFORCE_LABEL,
  checkCluster,
  checkNamespace,
  createKubeApi,
  manifestJson,
  renderPodManifest,
  runPod,
  sweepPods,
} from "./kube/index.js";
export { MountTableError, mountArguments, mountSpecs, validateMountTable } from "./mounts/index.js";
export { costOf, END_REASONS, HARVEST_REFUSAL_REASONS, MAX_LINE_BYTES, MAX_NOISE_LINES, jsonLines, PRICES_AS_OF, priceOf } from "./plan/index.js";
export { PREFLIGHT_OWNER, containerMounts, inspectEngine, inspectImage, probeStagingDirectory } from "./probes/index.js";
export { REDACTED, createMasker } from "./redact/index.js";
export { AGENT_IMAGE, AgentRunnerError, NETWORK_POLICIES, agentCliVersions, createAgentRunner, reachWarning } from "./runner/index.js";
export {
  DEFAULT_POOL_IDLE_SECONDS,
  DEGRADATION_KINDS,
  EarlyEnd,
  MAX_POOL_IDLE_SECONDS,
  MAX_POOL_SIZE,
  POOL_LABEL,
  RunRequestError,
  chooseRunBackend,
  createAgentContainerRuntime,
  createDegradations,
  createEngineSet,
  describeValue,
  limits,
  newRunId,
  outVolumeName,
  refusedOutcome,
  runNetworkName,
  runVolumeName,
  volumeHolderName,
} from "./runtime/index.js";
export { StagingError, stagingLimits } from "./staging/index.js";
export type { HarvestLimits, HarvestOptions, HarvestRecovery } from "./staging/index.js";
export type {
  AgentBudget,
  AgentCli,
  AgentEvent,
  AgentReason,
  AgentRequest,
  AgentRequestInput,
  ClaudeArgsOptions,
  AgentResult,
  AgentUsage,
  BudgetCap,
  BudgetUse,
  CodexArgsOptions,
  CodexParseOptions,
  CodexProvider,
  Credential,
  CredentialKind,
  CredentialSources,
  EndpointOverrides,
  MeteredUsage,
  StreamParseOptions,
} from "./agents/index.js";
export type {
  AgentContainer,
  ComposedCommand,
  ComposedSpec,
  ContainerDeadline,
  ContainerLimits,
  ExtraOptions,
  StagingDeclaration,
  ValidatedContainer,
} from "./container/index.js";
export type {
  EgressBreach,
  EgressBudget,
  EgressCap,
  EgressCli,
  EgressControl,
  EgressControlClient,
  EgressCredential,
  EgressUsage,
  MeteredCall,
  RunMeter,
  RunRegistration,
} from "./egress/index.js";
export type {
  ContainerExec,
  ContainerMount,
  ContainerState,
  ContainerStreams,
  Engine,
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
} from "./engine/index.js";
export type {
  DeploymentEgressOptions,
  EgressGateway,
  EgressGatewayConnection,
  EgressControlPath,
  EgressGatewayOptions,
  EgressGatewaySet,
  EgressGatewaySetOptions,
  KubeEgressGateway,
  KubeEgressGatewayOptions,
} from "./gateway/index.js";
export type { Mount, MountSpec, MountTable } from "./mounts/index.js";
export type {
  ChangeSummary,
  EndReason,
  ExitFacts,
  FramedLine,
  HarvestRefusal,
  HarvestRefusalReason,
  HarvestResult,
  Outcome,
  PlanContext,
  Price,
  PricedCli,
  ReaderVerdict,
  RunPlan,
  RunPlanFunction,
  RunPrompt,
  TokenCounts,
} from "./plan/index.js";
export type {
  EngineConnection,
  EngineFailure,
  EngineReport,
  ImageReport,
  MountsReport,
  StagingProbe,
  StagingProbeFailure,
  StagingProbeOptions,
} from "./probes/index.js";
export type { Masker } from "./redact/index.js";
export type {
  AgentOutcome,
  AgentRunOptions,
  AgentRunner,
  AgentRunnerOptions,
  BudgetReport,
  CliVersion,
  CliVersionOptions,
  NetworkPolicy,
  NetworkReport,
  RunTraceContext,
} from "./runner/index.js";
export type { HitBound } from "./liveness/index.js";
export type { ModelCallFacts, RunEnd, RunFacts, RunStep, RunTrace, TraceHeaders } from "./trace/index.js";
export type {
  AgentContainerRuntime,
  Degradation,
  DegradationKind,
  DegradationReport,
  Degradations,
  DegradationView,
  EngineCheck,
  EngineLease,
  EngineSet,
  EngineStatus,
  KubernetesBackend,
  NamedEngine,
  RuntimeCheck,
  RunNetwork,
  PlacedRun,
  RunOptions,
  RunVolumeKind,
  HeadStartPlan,
  ManifestOptions,
  PoolOptions,
  PoolStats,
  RuntimeOptions,
  BackendAsk,
  BackendNeed,
  RunBackend,
  SessionStoreOptions,
  SweepResult,
  RunFiles,
  WriteBound,
} from "./runtime/index.js";
export type { RunInputs, SecretFile, SweptSessionStore } from "./staging/index.js";
