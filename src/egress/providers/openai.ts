// OpenAI's Responses API as the proxy sees it (codex's provider): its two routes, either credential
// as a bearer, tools that reach other hosts refused, and usage read from the final response.

import { answerUsage, count, isJson, type EgressProvider, type ProviderUsage, type UsageState } from "./provider.js";

/** OpenAI Responses tool types whose server-side calls go to a URL the request names. */
const REFUSED_OPENAI_TOOL_TYPES: readonly string[] = ["mcp"];

/** Why a model call's body is refused (a tool that reaches other hosts), or undefined when it may go. */
function openaiToolRefusal(body: Readonly<Record<string, unknown>>): string | undefined {
  const tools = body["tools"];
  if (!Array.isArray(tools)) return undefined;
  for (const tool of tools) {
    const type = typeof tool === "object" && tool !== null ? (tool as Record<string, unknown>)["type"] : undefined;
    if (typeof type === "string" && REFUSED_OPENAI_TOOL_TYPES.includes(type)) {
      return `a tool of type ${JSON.stringify(type)} is refused: the provider's servers would reach other hosts for the Run`;
    }
  }
  return undefined;
}

// The usage is on the final response (completed, incomplete or failed); input_tokens includes the
// cached ones, which are counted apart here.
function usageState(): UsageState {
  let usage: ProviderUsage | undefined;
  let model: string | undefined;
  const fromResponse = (response: unknown): void => {
    if (!isJson(response)) return;
    if (typeof response["model"] === "string" && response["model"] !== "") model = response["model"];
    const u = response["usage"];
    if (!isJson(u)) return;
    const input = count(u["input_tokens"]) ?? 0;
    const details = isJson(u["input_tokens_details"]) ? u["input_tokens_details"] : {};
    const cached = Math.min(input, count(details["cached_tokens"]) ?? 0);
    usage = { inputTokens: input - cached, outputTokens: count(u["output_tokens"]) ?? 0, cacheReadTokens: cached, cacheWriteTokens: 0 };
  };
  return {
    wanted: new Set(["response.created", "response.completed", "response.incomplete", "response.failed"]),
    onEvent: (_name, data) => fromResponse(data["response"]),
    onBody: (body) => fromResponse(body),
    result: () => answerUsage(usage, model),
  };
}

export const openaiProvider: EgressProvider = {
  defaultUpstream: "https://api.openai.com",
  upstreamVariable: "AGENTCAGE_EGRESS_UPSTREAM_CODEX",
  // codex retries 402 and 403 (its request_max_retries) but not 400.
  budgetRefusalStatus: 400,
  routes: [
    { method: "POST", path: "/v1/responses", modelCall: true },
    { method: "GET", path: "/v1/models", modelCall: false },
  ],
  outputBoundField: "max_output_tokens",
  refusedBody: openaiToolRefusal,
  writeCredential: (credential, out) => {
    out["authorization"] = `Bearer ${credential.value}`;
  },
  usageState,
};
