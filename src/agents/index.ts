/**
 * The claude and codex agents: a typed request to argv and env, one credential that never leaks,
 * and one typed result parsed from each CLI's stream.
 *
 * ```ts
 * const agents = createAgentRunner({ image: "agentcage-agent:latest", staging: { runtimeDir: "/srv/agentcage" } });
 * const outcome = await agents.run({ cli: "claude", model: "sonnet", maxTurns: 20 }, "Review the diff in /work.", {
 *   inputs: { directory: "/srv/checkouts/pr-42" },
 *   harvestTo: "/srv/reviews/pr-42",
 *   onEvent: (event) => console.log(event.type),
 * });
 * ```
 */
export type { AgentCli, AgentRequest, AgentRequestInput } from "./request.js";
export type { AgentBudget, AgentEvent, AgentReason, AgentResult, AgentUsage, BudgetCap, BudgetUse, MeteredUsage, StreamParseOptions } from "./result.js";
export type { BudgetReport } from "./guard.js";
export type { CodexParseOptions } from "./codex-stream.js";
export type { CodexArgsOptions, CodexProvider } from "./codex.js";
export type { Credential, CredentialKind, CredentialSources } from "./credentials.js";
export type { AgentOutcome, AgentRunner } from "./runner.js";
export type { AgentRunnerOptions, AgentRunOptions } from "./runner-options.js";
export type { CliVersion, CliVersionOptions } from "./versions.js";
export { AGENT_CLIS, AgentRequestError, agentRequestSchema, parseAgentRequest } from "./request.js";
export { AGENT_REASONS } from "./result.js";
export { parseClaudeStream } from "./claude-stream.js";
export { parseCodexStream } from "./codex-stream.js";
export { claudeArgs } from "./claude.js";
export { codexArgs } from "./codex.js";
export { CREDENTIAL_VARIABLES, CredentialError, findCredential } from "./credentials.js";
export type { EndpointOverrides } from "./environment.js";
export { publicEnvironment } from "./environment.js";
export { createAgentRunner } from "./runner.js";
export { unheldCaps } from "./budget.js";
export { agentCliVersions } from "./versions.js";
export { AgentRunnerError } from "./runner-options.js";
export type { NetworkPolicy, NetworkReport } from "./network-policy.js";
export { NETWORK_POLICIES, reachWarning } from "./network-policy.js";
