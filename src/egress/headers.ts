// What the proxy lets each CLI reach at its provider, and how the real credential is written on
// the way out. The one place the path allowlist and the credential headers are decided.
// Invariant: a request reaches upstream only on a listed method and path, with every header that
// could carry the client's token removed and the real credential set by this file alone.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { EgressCli, EgressCredential } from "./run.js";

/** Production upstreams; a test points a CLI at the stand-in model on loopback instead. */
export const DEFAULT_UPSTREAMS: Readonly<Record<EgressCli, string>> = {
  claude: "https://api.anthropic.com",
  codex: "https://api.openai.com",
};

/** Sent with an OAuth token, as the claude CLI itself does when it holds CLAUDE_CODE_OAUTH_TOKEN. */
export const ANTHROPIC_OAUTH_BETA = "oauth-2025-04-20";

/**
 * The status a budget refusal is answered with, per CLI: one the CLI neither retries nor works
 * around. Checked with the real CLIs: claude retries none of 400, 402, 403 but answers a 400 by
 * calling again several times; codex retries 402 and 403 (its request_max_retries) but not 400.
 */
export const BUDGET_REFUSAL_STATUS: Readonly<Record<EgressCli, number>> = { claude: 402, codex: 400 };

export type Route = {
  readonly method: string;
  readonly path: string;
  /** A model call: counted as a turn, held against the budget, refused once it is spent. */
  readonly modelCall: boolean;
};

/** Exact paths (no prefix matching, no normalising): `/v1/messages/../x` is simply not listed. */
const ROUTES: Readonly<Record<EgressCli, readonly Route[]>> = {
  claude: [
    { method: "POST", path: "/v1/messages", modelCall: true },
    { method: "POST", path: "/v1/messages/count_tokens", modelCall: false },
  ],
  codex: [
    { method: "POST", path: "/v1/responses", modelCall: true },
    { method: "GET", path: "/v1/models", modelCall: false },
  ],
};

/**
 * Anthropic betas that let the provider's servers reach a URL the request names (the MCP connector,
 * server-side web fetch): a way out around this proxy, so a request asking for one is refused.
 */
export const REFUSED_ANTHROPIC_BETAS: readonly string[] = ["mcp-client-", "web-fetch-"];

/** The first beta of a claude request that REFUSED_ANTHROPIC_BETAS names, if any. */
export function refusedBeta(cli: EgressCli, headers: IncomingHttpHeaders): string | undefined {
  if (cli !== "claude") return undefined;
  const value = headers["anthropic-beta"];
  const betas = (Array.isArray(value) ? value.join(",") : (value ?? "")).split(",").map((b) => b.trim().toLowerCase());
  return betas.find((beta) => REFUSED_ANTHROPIC_BETAS.some((prefix) => beta.startsWith(prefix)));
}

export function routeOf(cli: EgressCli, method: string, path: string): Route | undefined {
  return ROUTES[cli].find((r) => r.method === method && r.path === path);
}

/** The per-Run token a client sent: `x-api-key`, or `Authorization: Bearer`. */
export function presentedToken(headers: IncomingHttpHeaders): string | undefined {
  const key = headers["x-api-key"];
  if (typeof key === "string" && key !== "") return key.trim();
  const auth = headers["authorization"];
  const match = typeof auth === "string" ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth) : null;
  return match?.[1];
}

// Hop-by-hop headers (RFC 9110 7.6.1) and every header that may carry the client's credential.
const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "authorization",
  "x-api-key",
  "api-key",
  "cookie",
  "accept-encoding",
  // Which organisation and project the real key bills is the Operator's to say, never the agent's.
  "openai-organization",
  "openai-project",
  // Node's server already answered 100-continue to the client; the body follows regardless.
  "expect",
]);

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"]);

/** The request headers sent upstream: the client's, less hop-by-hop and credential headers, plus the real credential. */
export function upstreamRequestHeaders(cli: EgressCli, credential: EgressCredential, headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = connectionTokens(headers["connection"]);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  // Identity, so the meter reads the answer as it passes (the client asked for nothing it needs).
  out["accept-encoding"] = "identity";
  if (cli === "claude" && credential.kind === "api_key") out["x-api-key"] = credential.value;
  else out["authorization"] = `Bearer ${credential.value}`;
  if (cli === "claude" && credential.kind === "oauth_token") {
    const betas = String(out["anthropic-beta"] ?? "")
      .split(",")
      .map((b) => b.trim())
      .filter((b) => b !== "");
    if (!betas.includes(ANTHROPIC_OAUTH_BETA)) betas.push(ANTHROPIC_OAUTH_BETA);
    out["anthropic-beta"] = betas.join(",");
  }
  return out;
}

/** The response headers passed to the client: the provider's, less hop-by-hop ones. */
export function clientResponseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = connectionTokens(headers["connection"]);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

function connectionTokens(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(
    text
      .split(",")
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ""),
  );
}
