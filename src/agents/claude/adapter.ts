// The claude adapter: Anthropic's claude CLI in print mode, its prompt on stdin (as text, or as a
// stream-json message it waits for however late), its stream-json read into the shared result.
// Invariant: every field here was checked against the pinned claude (images/agent/clis.env).

import type { AgentAdapter } from "../adapter/index.js";
import { claudeArgs, claudeUserMessage } from "./args.js";
import { CLAUDE_CONFIG_DIR, CLAUDE_QUIET } from "./environment.js";
import { parseClaudeStream } from "./stream.js";

export const claudeAdapter: AgentAdapter = {
  cli: "claude",
  maker: "Anthropic",
  modelProvider: "anthropic",
  // claude 2.1.332's `--effort` (its help lists these; anything else it ignores with a warning).
  efforts: ["low", "medium", "high", "xhigh", "max"],
  credentials: [
    ["CLAUDE_CODE_OAUTH_TOKEN", "oauth_token"],
    ["ANTHROPIC_API_KEY", "api_key"],
  ],
  // claude reads ANTHROPIC_BASE_URL from its public environment (the proxy's), and its key from here.
  proxyTokenVariable: "ANTHROPIC_API_KEY",
  keyHelperVariable: "ANTHROPIC_API_KEY",
  // One log per session, found with the real CLI.
  sessionPath: `${CLAUDE_CONFIG_DIR}/projects`,
  holdsMaxTurns: true,
  reportsTokensLive: true,
  waitsForPrompt: true,
  pin: { version: "CLAUDE_VERSION", integrity: "CLAUDE_INTEGRITY" },
  examples: ["Review the diff below and list the bugs you find.", "What is the capital of France?"],
  endpointOf: (overrides) => {
    const baseUrl = overrides.proxy?.baseUrl ?? overrides.anthropicBaseUrl;
    return baseUrl === undefined ? undefined : { baseUrl };
  },
  keyVariableOf: (found) => found,
  environment: (endpoint, apiRetries) => ({
    CLAUDE_CONFIG_DIR,
    ...CLAUDE_QUIET,
    ...(endpoint === undefined ? {} : { ANTHROPIC_BASE_URL: endpoint.baseUrl }),
    ...(apiRetries === undefined ? {} : { CLAUDE_CODE_MAX_RETRIES: String(apiRetries) }),
  }),
  plan: (request, prompt, { streamInput, keyHelper }) => ({
    args: claudeArgs(request, { streamInput, ...(keyHelper === undefined ? {} : { keyHelper }) }),
    stdin: streamInput ? claudeUserMessage(prompt) : prompt,
    read: (stdout, options) => parseClaudeStream(stdout, options),
  }),
};
