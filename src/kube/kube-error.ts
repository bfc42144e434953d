// The one refusal of the Kubernetes backend: a Run it cannot honour as a Pod. Thrown where it is
// decided, from the value alone; the message names the parameter, quotes its value, says what to do.
// And an API call's failure in words, as every refusal quotes it.
import { AgentcageError } from "../errors/index.js";

export class KubernetesError extends AgentcageError {
  override readonly name = "KubernetesError";
  readonly code = "kubernetes_refused";
}

/** An API call's failure in words: its HTTP status and the server's answer (bounded), or the error's message. */
export function apiMessage(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const body = (error as { body?: unknown }).body;
  const said = typeof body === "string" ? body : body === undefined ? "" : JSON.stringify(body);
  return `${typeof code === "number" ? `HTTP ${code}` : error instanceof Error ? error.message : String(error)}${said === "" ? "" : ` ${said.slice(0, 500)}`}`;
}
