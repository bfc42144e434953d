// The claude adapter: a typed request to claude's argv (print mode, stream-json, permissions
// bypassed because the container is the boundary), the prompt on stdin, and its stream parsed
// into the shared agent result. Never argv from the caller: every word here comes from a typed field.

import type { AdapterRequest as AgentRequest } from "../adapter/index.js";

/** Tools that reach the network; only a request with `web` gets them. */
export const CLAUDE_WEB_TOOLS = ["WebSearch", "WebFetch"] as const;

/** How claude takes its prompt: `stream-json`, as one user message (claudeUserMessage) that it waits for however late it comes. Default: text, which claude waits only 3 s for before it gives up. */
export type ClaudeArgsOptions = {
  /** The prompt comes as a stream-json user message; default false: as text. */
  readonly streamInput?: boolean;
  /**
   * A shell command that prints claude's API key (its `apiKeyHelper` setting, given with --settings):
   * claude runs it at its start and waits for its answer before its first request; default none (the
   * key is in its environment). The command is in the argv, so it must never hold the key itself.
   */
  readonly keyHelper?: string;
};

export function claudeArgs(request: AgentRequest, options: ClaudeArgsOptions = {}): string[] {
  return [
    "claude",
    "--print",
    ...(options.streamInput === true ? ["--input-format", "stream-json"] : []),
    "--output-format",
    "stream-json",
    "--verbose",
    "--max-turns",
    String(request.maxTurns),
    // Needs a non-root uid; inside the container there is nobody to ask and nothing to protect.
    "--dangerously-skip-permissions",
    ...(options.keyHelper === undefined ? [] : ["--settings", JSON.stringify({ apiKeyHelper: options.keyHelper })]),
    ...(request.noTools ? ["--tools", ""] : request.web ? [] : ["--disallowedTools", ...CLAUDE_WEB_TOOLS]),
    // A backstop to the live guard's dollar cap, by claude's own count: it ends error_max_budget_usd.
    ...(request.budget?.maxCostUsd === undefined ? [] : ["--max-budget-usd", String(request.budget.maxCostUsd)]),
    ...(request.model === undefined ? [] : ["--model", request.model]),
    ...(request.effort === undefined ? [] : ["--effort", request.effort]),
    ...(request.systemPrompt === undefined ? [] : ["--append-system-prompt", request.systemPrompt]),
    ...(request.resumeSession === undefined ? [] : ["--resume", request.resumeSession]),
  ];
}

/** The prompt as claude's stream-json input takes it: one user message, its content the prompt's text as it is (what the model is sent is the same as from text input). */
export function claudeUserMessage(prompt: string): string {
  return `${JSON.stringify({ type: "user", message: { role: "user", content: prompt } })}\n`;
}
