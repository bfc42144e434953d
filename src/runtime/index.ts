/**
 * The runtime: an Agent Container declaration composed once, run for real in one fresh
 * locked-down container per Run through the engine seam. It is also an agent adapter's one door:
 * everything an adapter needs (the plan contract, the declaration types, a refused Outcome) is here.
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
export type { RunOptions, SessionStoreOptions } from "./run-options.js";
export type { WriteBound } from "./run.js";
export type { SweepResult } from "./sweep.js";
export type { SweptSessionStore } from "../staging/index.js";
export type { AgentContainer, ComposedCommand, ContainerLimits, StagingDeclaration } from "../container/index.js";
export type {
  ContainerMount,
  Engine,
  EngineComponent,
  EngineFacts,
  EngineRuntime,
  ImageFacts,
  ListedNetwork,
  ListedVolume,
  MemoryVolumeSpec,
  NetworkSpec,
} from "../engine/index.js";
export type { EngineConnection, EngineFailure, EngineReport, ImageReport, MountsReport } from "./engine-facts.js";
export type { StagingProbe, StagingProbeFailure, StagingProbeOptions } from "./staging-probe.js";
export type { RunInputs, SecretFile } from "../staging/index.js";
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
  ReaderVerdict,
  RunPlan,
  RunPlanFunction,
  RunPrompt,
} from "../plan/index.js";
export type { RunNetwork } from "./run-network.js";
export type { EgressGateway, EgressGatewayConnection, EgressGatewayOptions } from "./egress-gateway.js";
export type {
  EgressBreach,
  EgressBudget,
  EgressCap,
  EgressCli,
  EgressControl,
  EgressControlClient,
  EgressCredential,
  EgressUsage,
  RunMeter,
  RunRegistration,
} from "../egress/index.js";
export { connectEgressGateway, DEFAULT_EGRESS_IMAGE, EGRESS_ALIAS, startEgressGateway } from "./egress-gateway.js";
export type { DeploymentEgressOptions } from "./deployment-egress.js";
export { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, EGRESS_SERVICE, findDeploymentEgress } from "./deployment-egress.js";
export { connectTarget } from "../egress/index.js";
export { createAgentContainerRuntime } from "./runtime.js";
export { newRunId } from "./run-id.js";
export { runNetworkName } from "./run-network.js";
export { outHolderName, outVolumeName, runVolumeName, volumeHolderName } from "./out-volume.js";
export type { RunVolumeKind } from "./out-volume.js";
export { refusedOutcome } from "./end-reason.js";
export { containerMounts, inspectEngine, inspectImage } from "./engine-facts.js";
export { PREFLIGHT_OWNER, probeStagingDirectory } from "./staging-probe.js";
export { describeValue, EarlyEnd, RunRequestError } from "./usage.js";
export {
  AgentContainerError,
  DEFAULT_AGENT_WORKDIR,
  DEFAULT_KEPT_RUN_RETENTION_DAYS,
  DEFAULT_SESSION_RETENTION_DAYS,
  MAX_RETENTION_DAYS,
  ExtraArgsError,
  OWNER_LABEL,
  RUN_LABEL,
  SUPPORTED_EXTRA_FLAGS,
} from "../container/index.js";
export { costOf, END_REASONS, HARVEST_REFUSAL_REASONS, jsonLines, MAX_LINE_BYTES, MAX_NOISE_LINES, PRICES_AS_OF, priceOf } from "../plan/index.js";
export type { Price, PricedCli, TokenCounts } from "../plan/index.js";
export { createMasker, REDACTED } from "../redact/index.js";
export * as limits from "./limits.js";
