// How a call from plain JavaScript that cannot mean anything is answered: the library's own
// error (never a raw TypeError), naming the parameter, quoting the value and saying what to write.
// run() still never rejects: its misuse is an `invalid_request` Outcome with the same sentence.

import { AgentcageError } from "../errors/index.js";

/** A commandFor() or sweep() call that cannot mean anything. */
export class RunRequestError extends AgentcageError {
  override readonly name = "RunRequestError";
  readonly code = "invalid_call";
}

/** The options run() knows; anything else is a typo the caller should hear about. */
export const RUN_OPTION_NAMES = [
  "signal",
  "timeoutSeconds",
  "inputs",
  "harvestTo",
  "replaceHarvestTo",
  "env",
  "secretFiles",
  "secrets",
  "tmpfsSecrets",
  "sessionStore",
  "stallSeconds",
  "onStallWarning",
  "runId",
  "network",
  "envAtClaim",
  "atPlacement",
  "trace",
] as const;
export const COMMAND_OPTION_NAMES = ["env", "secretFiles", "secrets"] as const;

/** A value as a person reads it in an error: JSON where it can be, else its kind. Never for secrets. */
export function describeValue(value: unknown): string {
  if (typeof value === "function") return "a function";
  // NaN and the infinities have no JSON spelling (it writes null): say them as they are.
  if (typeof value === "bigint" || typeof value === "symbol" || (typeof value === "number" && !Number.isFinite(value))) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** Why these call arguments are wrong: extra positional arguments, options that are not an object or hold unknown names. */
export function checkCallShape(call: string, options: unknown, known: readonly string[], extra: readonly unknown[]): string | undefined {
  if (extra.length > 0) return `${call} takes (prompt, options); ${extra.length} more argument(s) were given; put every option inside options`;
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    return `${call}'s options ${describeValue(options)} is not an object; pass { ${known.slice(0, 3).join(", ")}, ... } or leave it out`;
  }
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0) return `${call} option ${JSON.stringify(unknown[0])} is not one it knows; use ${known.join(", ")}`;
  const signal = (options as { signal?: unknown }).signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    return `${call} option signal ${describeValue(signal)} is not an AbortSignal; pass controller.signal (or AbortSignal.timeout(ms)), or leave it out`;
  }
  return undefined;
}

/**
 * An abort reason that ends a Run as something other than cancelled: an adapter that watches the
 * agent's events (its budget) aborts the Run's signal with one, and the Outcome says `why`.
 */
export class EarlyEnd extends Error {
  override readonly name = "EarlyEnd";
  constructor(
    readonly why: "budget_exceeded" | "stalled" | "unavailable",
    message: string,
  ) {
    super(message);
  }
}

/** How a caller's abort reads in an Outcome: a timeout signal is a timeout, an EarlyEnd its own reason; any other reason is quoted. */
export function callerAbort(signal: AbortSignal): { readonly why: "timeout" | "cancelled" | EarlyEnd["why"]; readonly detail: string } {
  const reason: unknown = signal.reason;
  if (reason instanceof EarlyEnd) return { why: reason.why, detail: reason.message };
  if (reason instanceof DOMException && reason.name === "TimeoutError") {
    return { why: "timeout", detail: `the caller's signal timed out (${reason.message})` };
  }
  if (reason === undefined || (reason instanceof DOMException && reason.name === "AbortError"))
    return { why: "cancelled", detail: "the Run was cancelled by the caller" };
  const quoted = reason instanceof Error ? JSON.stringify(reason.message) : describeValue(reason);
  return { why: "cancelled", detail: `the Run was cancelled by the caller: ${quoted}` };
}
