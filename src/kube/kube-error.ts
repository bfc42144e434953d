// The one refusal of the Kubernetes backend: a Run it cannot honour as a Pod. Thrown where it is
// decided, from the value alone; the message names the parameter, quotes its value, says what to do.
// And an API call's failure in words, as every refusal quotes it.
import { AgentcageError } from "../errors/index.js";

export class KubernetesError extends AgentcageError {
  override readonly name = "KubernetesError";
  readonly code = "kubernetes_refused";
}

/** Codes of a connection to the API server that was refused, or that has no way there: the server is shown gone, not slow. */
const REFUSED_CODES = new Set(["ECONNREFUSED", "ENOENT", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN"]);

/**
 * Whether a failed API call shows the API server gone (slow is not dead: docs/operations.md): its connection refused
 * (nobody listens at its address, no route there), read from the error or the error it wraps. A late
 * answer, a reset connection (a load balancer drops long watches) or the server's own refusal (an
 * HTTP status) is not.
 */
export function apiShownGone(error: unknown): boolean {
  for (let seen: unknown = error, depth = 0; typeof seen === "object" && seen !== null && depth < 4; depth++) {
    const code = (seen as { code?: unknown }).code;
    if (typeof code === "string" && REFUSED_CODES.has(code)) return true;
    seen = (seen as { cause?: unknown }).cause;
  }
  return false;
}

/** An API call's failure in words: its HTTP status and the server's answer (bounded), or the error's message. */
export function apiMessage(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const body = (error as { body?: unknown }).body;
  const said = typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body);
  return `${typeof code === "number" ? `HTTP ${code}` : error instanceof Error ? error.message : String(error)}${said === "" ? "" : ` ${said.slice(0, 500)}`}`;
}
