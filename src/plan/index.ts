/**
 * Run Plans and Outcomes: the contract between an agent adapter and the runtime, and the JSON-lines
 * framing most agents' stdout needs.
 *
 * ```ts
 * const plan: RunPlanFunction = (prompt) => ({
 *   args: ["sample-agent"],
 *   stdin: prompt.text,
 *   outcome: async (stdout) => { for await (const _ of stdout) {} return { ok: true }; },
 * });
 * ```
 */
export type { PlanContext, RunPrompt, ReaderVerdict, RunPlan, RunPlanFunction } from "./run-plan.js";
export type { EndReason, ExitFacts, Outcome } from "./outcome.js";
export type { ChangeSummary, HarvestRefusal, HarvestRefusalReason, HarvestResult } from "./harvest-result.js";
export type { FramedLine } from "./json-lines.js";
export { END_REASONS } from "./outcome.js";
export { HARVEST_REFUSAL_REASONS, OUT_NAME } from "./harvest-result.js";
export { jsonLines } from "./json-lines.js";
export { MAX_LINE_BYTES, MAX_NOISE_LINES } from "./limits.js";
export type { ModelProvider, Price, TokenCounts } from "./prices.js";
export { costOf, MODEL_PROVIDERS, PRICES_AS_OF, priceOf } from "./prices.js";
