/**
 * `agentcage/agents`: each agent CLI's own words, for a caller that drives one without the runner:
 * the adapters' record, the argv each CLI is given, the readers of its stream, where its
 * credentials come from, the CLIs' versions in an image, and the model providers' prices.
 *
 * ```ts
 * import { createReadStream } from "node:fs";
 * import { parseClaudeStream } from "agentcage/agents";
 *
 * // What `claude -p --output-format stream-json --verbose` printed, read as the runner reads it.
 * const result = await parseClaudeStream(createReadStream("claude-run.jsonl"), { onEvent: console.log });
 * console.log(result.ok, result.reason, result.text, result.usage);
 * ```
 */
export type {
  AdapterPlan,
  AdapterPlanContext,
  AdapterRequest,
  AgentAdapter,
  AgentEndpoint,
  ClaudeArgsOptions,
  CodexArgsOptions,
  CodexParseOptions,
  Credential,
  CredentialSources,
  CredentialVariable,
  EndpointOverrides,
  StreamParseOptions,
} from "../agents/index.js";
export {
  AGENT_ADAPTERS,
  CREDENTIAL_VARIABLES,
  adapterFor,
  agentRequestSchema,
  claudeArgs,
  codexArgs,
  findCredential,
  parseClaudeStream,
  parseCodexStream,
} from "../agents/index.js";
export type { CliVersion, CliVersionOptions } from "../runner/index.js";
export { agentCliVersions } from "../runner/index.js";
export type { ModelProvider, Price } from "../plan/index.js";
export { MODEL_PROVIDERS, PRICES_AS_OF, costOf, priceOf } from "../plan/index.js";
