// What the typed client throws: the service's own refusal (its HTTP status, its catalogue code and
// its sentence), or that no answer of the API's came (unreachable, not the API, silent too long).
// Invariant: a caller branches on `code` and `status`, never on the message, which names both.

import { AgentcageError } from "../errors/index.js";
import type { ErrorAnswer } from "./api-types.js";

/** A code the service answers in `error`: one of agentcage's catalogue. */
export type AnsweredCode = ErrorAnswer["error"];

export class ServiceError extends AgentcageError {
  override readonly name = "ServiceError";
  /** The service's own code; `service_unreachable` when no answer of the API's came; `service_silent` when a followed stream went quiet past its idle timeout. */
  readonly code: AnsweredCode | "service_unreachable" | "service_silent";
  /** The HTTP status the service answered; undefined when none came. */
  readonly status: number | undefined;
  /** The service's own sentence, as it said it (it quotes what was sent); undefined when it said none. */
  readonly serviceMessage: string | undefined;
  /** With 429 and 503: the Retry-After the service asked for, in seconds. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    message: string,
    facts: {
      readonly code: ServiceError["code"];
      readonly status?: number;
      readonly serviceMessage?: string;
      readonly retryAfterSeconds?: number;
      readonly cause?: unknown;
    },
  ) {
    super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.code = facts.code;
    this.status = facts.status;
    this.serviceMessage = facts.serviceMessage;
    this.retryAfterSeconds = facts.retryAfterSeconds;
  }
}

/** The service's refusal of `asked` ("GET /v1/runs/<id>"), from its answer. */
export function refusalOf(asked: string, response: Response, answer: unknown): ServiceError {
  const body = (typeof answer === "object" && answer !== null ? answer : {}) as Partial<ErrorAnswer>;
  const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
  const said = typeof body.message === "string" ? body.message : undefined;
  const known = typeof body.error === "string";
  return new ServiceError(
    `the service answered ${asked} with HTTP ${response.status}${known ? ` ${body.error}` : ""}${said === undefined ? "" : `: ${said}`}`,
    {
      // An answer without the API's error body (a proxy's page, a bare 502) is no answer of the API's.
      code: known ? (body.error as AnsweredCode) : "service_unreachable",
      status: response.status,
      ...(said === undefined ? {} : { serviceMessage: said }),
      ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
    },
  );
}

/** No answer at all to `asked`: the connection failed or timed out. */
export function unreachable(base: URL, asked: string, error: unknown): ServiceError {
  return new ServiceError(`the service at ${base.origin} cannot be reached for ${asked} (${causeOf(error)})`, { code: "service_unreachable", cause: error });
}

/** The deepest reason a fetch gives: ECONNREFUSED, a timeout's name, its message. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof DOMException && error.name === "TimeoutError") return "no answer in time";
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
