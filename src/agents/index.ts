/**
 * The claude and codex adapters: a typed request to argv and env, one credential that never leaks,
 * and one typed result parsed from each CLI's stream. Pure: running them is the runner's job.
 *
 * ```ts
 * const request = parseAgentRequest({ cli: "claude", model: "sonnet", maxTurns: 20 });
 * const argv = claudeArgs(request); // ["claude", "-p", "--output-format", "stream-json", ...]
 * const result = await parseClaudeStream(containerStdout);
 * ```
 */
export type { AgentCli, AgentRequest, AgentRequestInput } from "./request.js";
export type { AgentBudget, AgentEvent, AgentReason, AgentResult, AgentUsage, BudgetCap, BudgetUse, MeteredUsage, StreamParseOptions } from "./result.js";
export type { BudgetMeter } from "./budget.js";
export type { CodexParseOptions } from "./codex-stream.js";
export type { CodexArgsOptions, CodexProvider } from "./codex.js";
export type { Credential, CredentialKind, CredentialSources } from "./credentials.js";
export type { EndpointOverrides } from "./environment.js";
export { AGENT_CLIS, AGENT_EFFORTS, AgentRequestError, agentRequestSchema, parseAgentRequest } from "./request.js";
export { AGENT_REASONS } from "./result.js";
export { parseClaudeStream } from "./claude-stream.js";
export { parseCodexStream } from "./codex-stream.js";
export { claudeArgs, claudeUserMessage } from "./claude.js";
export type { ClaudeArgsOptions } from "./claude.js";
export { CODEX_QUIET, codexArgs } from "./codex.js";
export { CREDENTIAL_VARIABLES, CredentialError, findCredential } from "./credentials.js";
export { CLAUDE_CONFIG_DIR, CLAUDE_QUIET, CODEX_HOME, publicEnvironment } from "./environment.js";
export { createBudgetMeter, unheldCaps } from "./budget.js";
export * as agentLimits from "./limits.js";
