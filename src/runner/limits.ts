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

/** Between two readings of the egress proxy's meter during a Run (a `metered` event when it changed), when the last one answered in time. */
export const METER_EVENT_INTERVAL_MS = 1000;
/** The longest wait between two readings, reached by doubling after each reading that was late or failed: a busy proxy is asked less. */
export const METER_MAX_INTERVAL_MS = 30_000;
/**
 * A reading unanswered this long on an idle machine (stretched by the load) is slow: the proxy is
 * then asked whether it is gone (its container, its socket), and waited for again if it is not. No
 * count of slow readings ends a Run: only a proxy shown gone does (slow is not dead: docs/operations.md).
 */
export const METER_READ_SLOW_MS = 2000;
/**
 * How long, on an idle machine (stretched by the load), a Run waits for the egress proxy's breach
 * event stream to open before it ends unavailable; a proxy shown gone ends the wait at once.
 */
export const EGRESS_EVENTS_OPEN_MS = 10_000;
