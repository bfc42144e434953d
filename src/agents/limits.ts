// Bounds of an agent request, in one place.

/** A request, as JSON, in bytes; larger is refused before anything runs. */
export const MAX_REQUEST_BYTES = 64 * 1024;
export const MAX_TURNS = 1000;
export const DEFAULT_MAX_TURNS = 100;
export const MIN_REQUEST_TIMEOUT_SECONDS = 1;
export const MAX_REQUEST_TIMEOUT_SECONDS = 86_400;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 1800;
/** A credential read from a secrets file; anything longer is not a credential. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;
/** Retries of a failed API call by the CLI itself, unless the Operator says otherwise. */
export const DEFAULT_API_RETRIES = 2;
export const MAX_API_RETRIES = 10;
/**
 * After a CLI's terminal record (claude's `result`, codex's `turn.completed`/`turn.failed`) the
 * answer is known; the CLI gets this long to exit on its own before its container is stopped, so a
 * hang on the way out (an upload that cannot resolve inside the cage) never costs a Run's timeout.
 */
export const EXIT_AFTER_RESULT_MS = 2000;

/**
 * How long a Run may print nothing and use no CPU before it is stopped as stalled: long enough
 * for a model to think through a hard step, short enough that a hung CLI is not paid for all day.
 */
export const DEFAULT_STALL_SECONDS = 600;
export const MAX_STALL_SECONDS = 86_400;
/** The most a budget's maxTokens may say (a billion), and its maxCostUsd (dollars). */
export const MAX_BUDGET_TOKENS = 1_000_000_000;
export const MAX_BUDGET_COST_USD = 100_000;

/** Between two readings of the egress proxy's meter during a Run (a `metered` event when it changed). */
export const METER_EVENT_INTERVAL_MS = 1000;
/**
 * Readings of the proxy's meter in a row (one each METER_EVENT_INTERVAL_MS) that may fail before a
 * Run under `model` or `allowlist` ends unavailable: its agent cannot reach its model without the proxy.
 */
export const EGRESS_GONE_AFTER_MISSES = 2;
/** One reading of the proxy's meter that has not answered in this long is a miss. */
export const METER_READ_TIMEOUT_MS = 2000;
/** How long a Run waits for the egress proxy's breach event stream to open before it ends unavailable. */
export const EGRESS_EVENTS_OPEN_MS = 10_000;
