// The egress proxy's bounds, one place: each has a named constant with its unit, and a clear
// effect when hit (a refused request with a JSON error, or a metering that stops reading).

const KiB = 1024;
const MiB = 1024 * KiB;

/** Bytes of random in a per-Run token (base64url: 43 characters after the prefix). */
export const RUN_TOKEN_BYTES = 32;
/** What every per-Run token starts with, so a log reader or a masker can tell one at a glance. */
export const RUN_TOKEN_PREFIX = "agentcage-run-";
/** A request body larger than this is cut off and answered 413 (Anthropic's own limit for a Messages call). */
export const MAX_REQUEST_BODY_BYTES = 32 * MiB;
/** Bytes of model-call bodies one Run may have held in the proxy at once; past it a call is answered 429. */
export const MAX_RUN_HELD_REQUEST_BYTES = 48 * MiB;
/** Bytes of model-call bodies all Runs may have held at once, well inside the proxy's memory; past it 503. */
export const MAX_HELD_REQUEST_BYTES = 96 * MiB;
/** Model calls one Run's meter reports one by one (for a span each); later ones are counted, not listed. */
export const MAX_METERED_CALLS = 1000;
/** Requests one Run may have in flight at once; one more is answered 429. */
export const MAX_RUN_REQUESTS_IN_FLIGHT = 16;
/** CONNECT tunnels one Run may have open at once; one more is refused 429. */
export const MAX_RUN_TUNNELS = 16;
/** Connections from one source address (one Run's agent, on its own network) at once; more are closed as they open. */
export const MAX_CONNECTIONS_PER_SOURCE = 64;
/** Connections to the proxy at once, from everyone. */
export const MAX_CONNECTIONS = 4096;
/** A connection must have sent a request's headers within this long of opening or of its last request. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A request must have arrived whole (headers and body) within this long; its answer may stream for longer. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** An idle keep-alive connection is closed after this long. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often the server checks its connections against the two timeouts above. */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
/** A tunnel through which no byte passed either way for this long is cut. */
export const TUNNEL_IDLE_TIMEOUT_MS = 5 * 60_000;
/** A model call waiting for the calls in flight to settle the budget is answered 429 after this long. */
export const MAX_BUDGET_WAIT_MS = 10 * 60_000;
/** A model call that names no output bound is reserved at this many output tokens. */
export const DEFAULT_WORST_OUTPUT_TOKENS = 128_000;
/** A JSON (not streamed) response is metered from at most this many bytes; the rest passes unread. */
export const MAX_METERED_JSON_BYTES = 16 * MiB;
/** A streamed answer's events are skipped unparsed (when they name no usage event) up to this many bytes with no blank line; past it they are parsed. */
export const MAX_SKIPPED_EVENT_BYTES = 64 * KiB;
/** The control endpoint reads at most this much of a request body. */
export const MAX_CONTROL_BODY_BYTES = 64 * KiB;
/** The control endpoint's secret must be at least this long (characters). */
export const MIN_CONTROL_SECRET_LENGTH = 32;
/** Run ids: what the runtime makes (16 hex digits) and what a caller may reasonably choose. */
export const EGRESS_RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** A credential longer than this is not one (and would not fit in a header). */
export const MAX_CREDENTIAL_LENGTH = 8 * KiB;
/** Runs registered at once; one more is refused, so a runaway caller cannot exhaust the proxy. */
export const MAX_LIVE_RUNS = 10_000;
/** host:port pairs one Run's own allowlist may hold. */
export const MAX_ALLOWLIST_ENTRIES = 256;
/** A control secret written on the proxy's stdin is one line of at most this many bytes. */
export const MAX_CONTROL_SECRET_BYTES = 4 * KiB;
/** How long the proxy waits at its start for the control secret on its stdin. */
export const STDIN_SECRET_WAIT_MS = 30_000;
/**
 * Connections the control client keeps to an endpoint it reaches through its caller's connect (a
 * bridge, one program in the proxy's container each): the event stream and three requests at once.
 */
export const MAX_CALLER_CONNECTIONS = 4;
/** An unused one of those is closed after this long: under the endpoint's keep-alive (Node's 5 s), above a meter's 1 s reading interval. */
export const CALLER_CONNECTION_IDLE_MS = 2_000;

/**
 * How long one control request (register, meter, bind, revoke) may take before it is given up as a
 * failure: a proxy that hangs must not hang a Run's end. The events stream is not bounded by it.
 */
export const CONTROL_REQUEST_TIMEOUT_MS = 15_000;

/** The longest wait between two tries at reopening the breach event stream of a proxy that does not answer. */
export const EVENTS_RECONNECT_MAX_MS = 30_000;
