// Bounds of an agent runner's Runs, in one place: the CLI's own retries, its time to exit after
// its answer, and how the runner reads the egress proxy's meter while a Run goes.

/** Retries of a failed API call by the CLI itself, unless the Operator says otherwise. */
export const DEFAULT_API_RETRIES = 2;
export const MAX_API_RETRIES = 10;
/**
 * After a CLI's terminal record (claude's `result`, codex's `turn.completed`/`turn.failed`) the
 * answer is known; the CLI gets this long to exit on its own before its container is stopped, so a
 * hang on the way out (an upload that cannot resolve inside the cage) never costs a Run's timeout.
 */
export const EXIT_AFTER_RESULT_MS = 2000;

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
