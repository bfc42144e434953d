// The headers of a forwarded exchange: the per-Run token a client presented, what goes upstream (the
// client's headers less hop-by-hop and credential ones, plus the real credential as the Run's
// provider writes it) and what comes back. Invariant: a request reaches upstream with every header
// that could carry the client's token removed and the real credential set by its provider alone.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { EgressProvider, ProviderCredential } from "./providers/index.js";

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
export function upstreamRequestHeaders(provider: EgressProvider, credential: ProviderCredential, headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = connectionTokens(headers["connection"]);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  // Identity, so the meter reads the answer as it passes (the client asked for nothing it needs).
  out["accept-encoding"] = "identity";
  provider.writeCredential(credential, out);
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
