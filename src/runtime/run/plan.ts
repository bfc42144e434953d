// The plan step: asks the Run Plan function for this Run's plan and checks what it answered, so a
// plan that cannot run ends the Run as `plan_error` (or `input_limit`) before any container exists.

import type { PlanContext, ReaderVerdict, RunPlan, RunPlanFunction, RunPrompt } from "../../plan/index.js";
import { MAX_EXIT_GRACE_MS, MAX_STDIN_BYTES } from "../limits.js";

/** A checked plan with its stdin as bytes, or the sentence that says why there is none. */
export type PlannedRun<R extends ReaderVerdict> =
  | { readonly ok: true; readonly plan: RunPlan<R>; readonly stdin: Uint8Array }
  | { readonly ok: false; readonly reason: "plan_error" | "input_limit"; readonly error: string };

export function planRun<R extends ReaderVerdict, Q>(planFunction: RunPlanFunction<R, Q>, prompt: RunPrompt<Q>, context: PlanContext): PlannedRun<R> {
  let plan: RunPlan<R>;
  try {
    plan = planFunction(prompt, context);
  } catch (error) {
    return { ok: false, reason: "plan_error", error: `the Run Plan function threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  const problem = checkPlan(plan);
  if (problem !== undefined) return { ok: false, reason: "plan_error", error: problem };
  const stdin = typeof plan.stdin === "string" ? Buffer.from(plan.stdin, "utf8") : plan.stdin;
  if (stdin.length > MAX_STDIN_BYTES) {
    return {
      ok: false,
      reason: "input_limit",
      error: `the plan's stdin is ${stdin.length} bytes, over its limit of ${MAX_STDIN_BYTES} (MAX_STDIN_BYTES); send a shorter prompt or hand large inputs over as files`,
    };
  }
  return { ok: true, plan, stdin };
}

export function checkPlan(plan: unknown): string | undefined {
  const p = plan as Partial<RunPlan> | null;
  if (typeof p !== "object" || p === null) return "the Run Plan function returned no plan; return { args, stdin, outcome }";
  if (!Array.isArray(p.args) || !p.args.every((a) => typeof a === "string" && !a.includes("\0"))) {
    return "the plan's args are not a list of strings without NUL bytes; return args as string[]";
  }
  if (typeof p.stdin !== "string" && !(p.stdin instanceof Uint8Array)) return "the plan's stdin is neither a string nor bytes; return the prompt as stdin";
  if (typeof p.outcome !== "function") return "the plan's outcome is not a function; return a reader (stdout) => Promise<{ ok }>";
  const grace = p.exitGraceMs;
  if (grace !== undefined && !(Number.isInteger(grace) && grace >= 0 && grace <= MAX_EXIT_GRACE_MS)) {
    return `the plan's exitGraceMs ${JSON.stringify(grace)} is out of range; return a whole number of milliseconds from 0 to ${MAX_EXIT_GRACE_MS}, or leave it out`;
  }
  return undefined;
}
