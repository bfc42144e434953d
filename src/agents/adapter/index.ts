/**
 * What every agent adapter is made of: the AgentAdapter type, the one result and event types each
 * CLI's stream is read into, the loop that reads a stream of JSON records, and the classifier of API
 * failures. An adapter's folder (claude/, codex/) imports this; nothing here knows any CLI.
 *
 * ```ts
 * const result = await readRecords(stdout, options, (record) => (record["type"] === "result" ? "terminal" : undefined));
 * ```
 */
export type {
  AdapterPlan,
  AdapterPlanContext,
  AdapterRequest,
  AgentAdapter,
  AgentEndpoint,
  CodexProvider,
  CredentialVariable,
  EndpointOverrides,
} from "./adapter.js";
export type { AgentBudget, AgentEvent, AgentReason, AgentResult, AgentUsage, BudgetCap, BudgetUse, MeteredUsage, StreamParseOptions } from "./result.js";
export type { Classified } from "./classify.js";
export type { RecordVerdict } from "./read-stream.js";
export { AGENT_REASONS } from "./result.js";
export { classifyApiFailure } from "./classify.js";
export { arr, emitter, num, obj, readRecords, str, tooNoisyMessage } from "./read-stream.js";
