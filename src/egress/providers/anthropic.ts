// Anthropic's Messages API as the proxy sees it (claude's provider): its two routes, its key as
// `x-api-key` or an OAuth token as a bearer with the OAuth beta, its betas that reach other hosts
// refused, and usage read from message_start and message_delta.

import type { IncomingHttpHeaders } from "node:http";
import { answerUsage, count, isJson, type EgressProvider, type ProviderUsage, type UsageState } from "./provider.js";

/** Sent with an OAuth token, as the claude CLI itself does when it holds CLAUDE_CODE_OAUTH_TOKEN. */
const ANTHROPIC_OAUTH_BETA = "oauth-2025-04-20";

/**
 * Anthropic betas that let the provider's servers reach a URL the request names (the MCP connector,
 * server-side web fetch): a way out around this proxy, so a request asking for one is refused.
 */
const REFUSED_ANTHROPIC_BETAS: readonly string[] = ["mcp-client-", "web-fetch-"];

/** The first beta of a request that REFUSED_ANTHROPIC_BETAS names, if any. */
function refusedBeta(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["anthropic-beta"];
  const betas = (Array.isArray(value) ? value.join(",") : (value ?? "")).split(",").map((b) => b.trim().toLowerCase());
  const beta = betas.find((b) => REFUSED_ANTHROPIC_BETAS.some((prefix) => b.startsWith(prefix)));
  return beta === undefined ? undefined : `anthropic-beta ${JSON.stringify(beta)} is refused: it lets the provider's servers reach other hosts for the Run`;
}

// message_start carries the input side (and the model); message_delta carries the output so far,
// and in newer API versions the input side again. Both are cumulative.
function usageState(): UsageState {
  let usage: ProviderUsage | undefined;
  let model: string | undefined;
  const merge = (u: unknown): void => {
    if (!isJson(u)) return;
    const base = usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    usage = {
      inputTokens: count(u["input_tokens"]) ?? base.inputTokens,
      outputTokens: count(u["output_tokens"]) ?? base.outputTokens,
      cacheReadTokens: count(u["cache_read_input_tokens"]) ?? base.cacheReadTokens,
      cacheWriteTokens: count(u["cache_creation_input_tokens"]) ?? base.cacheWriteTokens,
    };
  };
  const modelOf = (m: unknown): void => {
    if (typeof m === "string" && m !== "") model ??= m;
  };
  return {
    wanted: new Set(["message_start", "message_delta"]),
    onEvent: (name, data) => {
      if (name === "message_start" && isJson(data["message"])) {
        modelOf(data["message"]["model"]);
        merge(data["message"]["usage"]);
      } else if (name === "message_delta") merge(data["usage"]);
    },
    onBody: (body) => {
      if (body === undefined) return;
      modelOf(body["model"]);
      merge(body["usage"]);
    },
    result: () => answerUsage(usage, model),
  };
}

export const anthropicProvider: EgressProvider = {
  defaultUpstream: "https://api.anthropic.com",
  upstreamVariable: "AGENTCAGE_EGRESS_UPSTREAM_CLAUDE",
  // claude retries none of 400, 402, 403 but answers a 400 by calling again several times.
  budgetRefusalStatus: 402,
  routes: [
    { method: "POST", path: "/v1/messages", modelCall: true },
    { method: "POST", path: "/v1/messages/count_tokens", modelCall: false },
  ],
  outputBoundField: "max_tokens",
  refusedHeaders: refusedBeta,
  writeCredential: (credential, out) => {
    if (credential.kind === "api_key") {
      out["x-api-key"] = credential.value;
      return;
    }
    out["authorization"] = `Bearer ${credential.value}`;
    const betas = String(out["anthropic-beta"] ?? "")
      .split(",")
      .map((b) => b.trim())
      .filter((b) => b !== "");
    if (!betas.includes(ANTHROPIC_OAUTH_BETA)) betas.push(ANTHROPIC_OAUTH_BETA);
    out["anthropic-beta"] = betas.join(",");
  },
  usageState,
};
