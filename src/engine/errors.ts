// What an engine's failure means to a person: its HTTP status, its own words, and one sentence
// saying what to do. Every engine implementation's errors are read through these.

import { connectionTrouble } from "./connection-words.js";

/** HTTP status of an Engine API error, when there is one. */
export function engineStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** The daemon's own words for an Engine API error, else the error's message. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  if (json && typeof json.message === "string") return json.message.trim();
  const reason = (error as { reason?: unknown } | null)?.reason;
  const message = error instanceof Error ? error.message : String(error);
  return typeof reason === "string" && !message.includes(reason) ? `${reason}: ${message}` : message;
}

/** Whether a failed engine call was TLS's or ssh's, and so what a fix must mend; undefined for any other failure. */
export function connectionTroubleKind(error: unknown): "tls" | "ssh" | undefined {
  return connectionTrouble(error, engineMessage(error))?.kind;
}

/** Words for why an engine did not answer: TLS's trouble said plainly (connection-words.ts), else the engine's own words. */
export function connectionMessage(error: unknown): string {
  const said = engineMessage(error);
  return connectionTrouble(error, said)?.words ?? said;
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOENT", "EACCES", "ECONNRESET", "EPIPE", "ETIMEDOUT"]);

/** A connection the engine's side (or the way there) refused: no listener, no socket file, no route, no permission. */
const REFUSED_CODES = new Set(["ECONNREFUSED", "ENOENT", "EACCES", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN"]);
/** A connection closed before the engine answered: its process died under the call, or the ssh command serving it exited. */
const BROKEN_CODES = new Set(["ECONNRESET", "EPIPE"]);

/**
 * Whether a failed engine call shows the engine gone, not slow (slow is not dead: docs/operations.md): "refused" when
 * its connection was refused (a socket nobody listens on, no socket file, no route, a connect the
 * kernel gave up on, TLS or ssh refusing this client), "broken" when it was closed before any answer; undefined for anything
 * else, a late answer or the engine's own refusal of the call, which an engine that lives gives.
 */
export function engineShownGone(error: unknown): "refused" | "broken" | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && REFUSED_CODES.has(code)) return "refused";
  // The kernel's own retries of a connection went unanswered (about two minutes): a host gone from the network, not a busy one.
  if (code === "ETIMEDOUT" && (error as { syscall?: unknown }).syscall === "connect") return "refused";
  if (typeof code === "string" && BROKEN_CODES.has(code)) return "broken";
  return connectionTroubleKind(error) === undefined ? undefined : "refused";
}

/** The name an engine of a set gives its calls' errors (engineNamed), so what fails says which engine. */
const ENGINE_NAME = Symbol("agentcage.engineName");

/** The error, marked as one of the engine called `name` (one engine of several); returned as given. */
export function engineNamed(error: unknown, name: string): unknown {
  if (typeof error === "object" && error !== null) Object.defineProperty(error, ENGINE_NAME, { value: name, configurable: true });
  return error;
}

/** Words for a failed engine call during `step`, saying what to do where we know. */
export function describeEngineError(step: string, error: unknown, image: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) {
    const name = (error as { [ENGINE_NAME]?: unknown })[ENGINE_NAME];
    // One engine of several: the others still answer, so the words are the drain's, not "start dockerd".
    if (typeof name === "string")
      return `the engine ${JSON.stringify(name)} stopped answering (${code} during ${step}): the Run on it was ended, and no new Run goes there until it answers again`;
    return `the container engine is unreachable (${code} during ${step}); start dockerd or point DOCKER_HOST at a running engine`;
  }
  if (step === "create" && engineStatus(error) === 404) {
    return `image ${JSON.stringify(image)} is not on this engine (${engineMessage(error)}); build or load it first, nothing is pulled`;
  }
  const said = engineMessage(error);
  const trouble = connectionTrouble(error, said);
  if (trouble !== undefined) return `the engine could not be asked to ${step}: ${trouble.words}`;
  if (step === "create" && /unknown runtime|invalid runtime/i.test(said)) {
    return `the engine has no such container runtime (${said}); register it with the engine (dockerd's "runtimes" setting; \`docker info\` lists them), or leave containerRuntime out for the engine's default`;
  }
  return `the engine refused ${step}: ${said}`;
}
