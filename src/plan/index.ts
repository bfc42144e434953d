/**
 * Run Plans and Outcomes: the contract between an agent adapter and the runtime.
 *
 * ```ts
 * const plan: RunPlanFunction = (prompt) => ({
 *   args: ["sample-agent"],
 *   stdin: prompt.text,
 *   outcome: async (stdout) => { for await (const _ of stdout) {} return { ok: true }; },
 * });
 * ```
 */
export type { RunPrompt, ReaderVerdict, RunPlan, RunPlanFunction } from "./run-plan.js";
export type { EndReason, ExitFacts, Outcome } from "./outcome.js";
export { END_REASONS } from "./outcome.js";
