// The typed client's bounds, each named with its unit: how long a request may take, how a follow
// waits between reconnects, and how long it listens to silence before it gives up.

/** A request that is not a stream (submit, get, cancel, ...) and takes longer than this has failed. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Attempts at one submit when the connection fails; each sends the same Idempotency-Key, so they make one Run. */
export const SUBMIT_ATTEMPTS = 3;
/** The wait before the second submit attempt; it grows by this much each time. */
export const SUBMIT_RETRY_STEP_MS = 500;
/** The first wait before a follow reconnects; it doubles each time the service stays away. */
export const FIRST_RECONNECT_WAIT_MS = 250;
/** Waits between a follow's reconnects grow to this. */
export const MAX_RECONNECT_WAIT_MS = 5_000;
/** A follow that hears nothing for this long, not even one of the service's keep-alives (one each 15 s), gives up. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
