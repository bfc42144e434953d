/**
 * The agent adapters, one folder per CLI (claude/, codex/) registered in one record (adapters.ts):
 * a typed request to argv and env, one credential that never leaks, and one typed result parsed
 * from each CLI's stream. Pure: running them is the runner's job. Ask the record, never a CLI's name.
 *
 * ```ts
 * const request = parseAgentRequest({ cli: "claude", model: "sonnet", maxTurns: 20 });
 * const plan = adapterFor(request.cli).plan(request, "Review the diff.", { workdir: "/work", keepSession: false, endpoint: undefined, streamInput: false });
 * const result = await plan.read(containerStdout, {});
 * ```
 */
export type { AgentCli } from "./adapters.js";
export type { AgentRequest, AgentRequestInput } from "./request.js";
export type {
  AdapterPlan,
  AdapterPlanContext,
  AdapterRequest,
  AgentAdapter,
  AgentBudget,
  AgentEndpoint,
  AgentEvent,
  AgentReason,
  AgentResult,
  AgentUsage,
  BudgetCap,
  BudgetUse,
  CodexProvider,
  CredentialVariable,
  EndpointOverrides,
  MeteredUsage,
  StreamParseOptions,
} from "./adapter/index.js";
export type { BudgetMeter } from "./budget.js";
export type { ClaudeArgsOptions } from "./claude/index.js";
export type { CodexArgsOptions, CodexParseOptions } from "./codex/index.js";
export type { Credential, CredentialKind, CredentialSources } from "./credentials.js";
export { AGENT_ADAPTERS, AGENT_CLIS, DEFAULT_AGENT_CLI, adapterFor, isAgentCli, perCli } from "./adapters.js";
export { AGENT_EFFORTS, AgentRequestError, agentRequestSchema, parseAgentRequest } from "./request.js";
export { AGENT_REASONS } from "./adapter/index.js";
export { CLAUDE_QUIET, claudeArgs, parseClaudeStream } from "./claude/index.js";
export { CODEX_QUIET, codexArgs, parseCodexStream } from "./codex/index.js";
export { CREDENTIAL_VARIABLES, CredentialError, findCredential } from "./credentials.js";
export { everyPublicEnvironment, publicEnvironment } from "./environment.js";
export { createBudgetMeter, unheldCaps } from "./budget.js";
export * as agentLimits from "./limits.js";
