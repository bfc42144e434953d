// Bounds of an agent request, in one place.

/** A request, as JSON, in bytes; larger is refused before anything runs. */
export const MAX_AGENT_REQUEST_BYTES = 64 * 1024;
export const MAX_TURNS = 1000;
export const DEFAULT_MAX_TURNS = 100;
/** An agent request's timeoutSeconds: always set on the Run, so the runtime's own DEFAULT_TIMEOUT_SECONDS (an hour) never applies to an agent. */
export const MIN_REQUEST_TIMEOUT_SECONDS = 1;
export const MAX_REQUEST_TIMEOUT_SECONDS = 86_400;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 1800;
/** A credential read from a secrets file; anything longer is not a credential. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;
/**
 * How long a Run may print nothing and use no CPU before it is stopped as stalled: long enough
 * for a model to think through a hard step, short enough that a hung CLI is not paid for all day.
 */
export const DEFAULT_STALL_SECONDS = 600;
export const MAX_STALL_SECONDS = 86_400;
/** The most a budget's maxTokens may say (a billion), and its maxCostUsd (dollars). */
export const MAX_BUDGET_TOKENS = 1_000_000_000;
export const MAX_BUDGET_COST_USD = 100_000;
