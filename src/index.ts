/**
 * agentcage: run an AI coding-agent CLI in one fresh, locked-down container per Run and turn
 * what it prints into a typed Outcome. The root holds what a user of the library calls (the agent
 * runner, the runtime for an agent of one's own, the Harvest, the egress proxy's start) and the
 * types its signatures name, at most 100 names (test/repository/public-surface.test.ts counts them).
 * What only an advanced option reaches lives behind a subpath: `agentcage/runtime` (engines, engine
 * sets, the warm pool, degradations, probes, traces), `agentcage/kubernetes`, `agentcage/egress`
 * (proxy sets, its control and meter), `agentcage/agents` (stream readers, argv, credentials,
 * adapters, prices), `agentcage/testing` and `agentcage/client` (src/subpaths/, src/testing/,
 * src/client/). Every type a public signature reaches is exported from one of them
 * (test/package/pack.test.ts checks it).
 *
 * ```ts
 * import { createAgentRunner, startEgressGateway } from "agentcage";
 *
 * const egress = await startEgressGateway({ runtimeDir: "/srv/agentcage" });
 * const agents = createAgentRunner({ image: "agentcage-agent:latest", staging: { runtimeDir: "/srv/agentcage" }, networkPolicy: "model", egress });
 * const outcome = await agents.run({ cli: "claude", model: "sonnet", maxTurns: 30 }, "Say hi.");
 * ```
 */

// The agent runner: a typed request to a Run of its CLI, with its network policy and guards.
export type {
  AgentOutcome,
  AgentRunner,
  AgentRunnerOptions,
  AgentRunOptions,
  BudgetReport,
  NetworkPolicy,
  NetworkReport,
} from "./runner/index.js";
export { AGENT_IMAGE, AgentRunnerError, NETWORK_POLICIES, createAgentRunner, reachWarning } from "./runner/index.js";

// The request and what an agent's stream says.
export type {
  AgentBudget,
  AgentCli,
  AgentEvent,
  AgentReason,
  AgentRequest,
  AgentRequestInput,
  AgentResult,
  AgentUsage,
  BudgetCap,
  BudgetUse,
  CodexProvider,
  CredentialKind,
  MeteredUsage,
} from "./agents/index.js";
export { AGENT_CLIS, AGENT_EFFORTS, AGENT_REASONS, AgentRequestError, CredentialError, parseAgentRequest } from "./agents/index.js";

// The runtime: an Agent Container and a Run Plan function of one's own.
export type { AgentContainerRuntime, RunOptions, RuntimeOptions, SweepResult } from "./runtime/index.js";
export { RunRequestError, createAgentContainerRuntime, limits } from "./runtime/index.js";
export type { AgentContainer, ComposedCommand, ContainerLimits, StagingDeclaration } from "./container/index.js";
export { AgentContainerError, ExtraArgsError, OWNER_LABEL, RUN_LABEL } from "./container/index.js";
export type { Mount, MountTable } from "./mounts/index.js";
export { MountTableError, validateMountTable } from "./mounts/index.js";
export type { Masker } from "./redact/index.js";

// The Run Plan contract and the Outcome.
export type {
  ChangeSummary,
  EndReason,
  ExitFacts,
  HarvestRefusal,
  HarvestRefusalReason,
  HarvestResult,
  Outcome,
  PlanContext,
  ReaderVerdict,
  RunPlan,
  RunPlanFunction,
  RunPrompt,
  TokenCounts,
} from "./plan/index.js";
export { END_REASONS, HARVEST_REFUSAL_REASONS } from "./plan/index.js";

// A Run's files: its inputs, its secret files, the Harvest and its recovery.
export type { HarvestLimits, HarvestOptions, HarvestRecovery, RunInputs, SecretFile, SweptSessionStore } from "./staging/index.js";
export { HarvestArgumentError, StagingError, harvest, recoverHarvest } from "./staging/index.js";

// The egress proxy beside the Runs (sets of them, connecting to one, its meter: agentcage/egress).
export type { EgressGateway, EgressGatewayOptions } from "./gateway/index.js";
export { startEgressGateway } from "./gateway/index.js";

// The error base and its catalogue of codes.
export type { ErrorCode } from "./errors/index.js";
export { AgentcageError, ERROR_CODES } from "./errors/index.js";
