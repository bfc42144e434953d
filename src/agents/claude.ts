// The claude adapter: a typed request to claude's argv (print mode, stream-json, permissions
// bypassed because the container is the boundary), the prompt on stdin, and its stream parsed
// into the shared agent result. Never argv from the caller: every word here comes from a typed field.

import type { AgentRequest } from "./request.js";

/** Tools that reach the network; only a request with `web` gets them. */
export const CLAUDE_WEB_TOOLS = ["WebSearch", "WebFetch"] as const;

export function claudeArgs(request: AgentRequest): string[] {
  return [
    "claude",
    "--print",
    "--output-format",
    "stream-json",
    "--verbose",
    "--max-turns",
    String(request.maxTurns),
    // Needs a non-root uid; inside the container there is nobody to ask and nothing to protect.
    "--dangerously-skip-permissions",
    ...(request.noTools ? ["--tools", ""] : request.web ? [] : ["--disallowedTools", ...CLAUDE_WEB_TOOLS]),
    // A backstop to the live guard's dollar cap, by claude's own count: it ends error_max_budget_usd.
    ...(request.budget?.maxCostUsd === undefined ? [] : ["--max-budget-usd", String(request.budget.maxCostUsd)]),
    ...(request.model === undefined ? [] : ["--model", request.model]),
    ...(request.effort === undefined ? [] : ["--effort", request.effort]),
    ...(request.systemPrompt === undefined ? [] : ["--append-system-prompt", request.systemPrompt]),
    ...(request.resumeSession === undefined ? [] : ["--resume", request.resumeSession]),
  ];
}
