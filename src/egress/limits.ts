// The egress proxy's bounds, one place: each has a named constant with its unit, and a clear
// effect when hit (a refused request with a JSON error, or a metering that stops reading).

const KiB = 1024;
const MiB = 1024 * KiB;

/** Bytes of random in a per-Run token (base64url: 43 characters after the prefix). */
export const RUN_TOKEN_BYTES = 32;
/** What every per-Run token starts with, so a log reader or a masker can tell one at a glance. */
export const RUN_TOKEN_PREFIX = "agentcage-run-";
/** A model request body larger than this is cut off and answered 413. */
export const MAX_REQUEST_BYTES = 64 * MiB;
/** A JSON (not streamed) response is metered from at most this many bytes; the rest passes unread. */
export const MAX_METERED_JSON_BYTES = 16 * MiB;
/** The control endpoint reads at most this much of a request body. */
export const MAX_CONTROL_BODY_BYTES = 64 * KiB;
/** The control endpoint's secret must be at least this long (characters). */
export const MIN_CONTROL_SECRET_LENGTH = 32;
/** Run ids: what the runtime makes (16 hex digits) and what a caller may reasonably choose. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** A credential longer than this is not one (and would not fit in a header). */
export const MAX_CREDENTIAL_LENGTH = 8 * KiB;
/** Runs registered at once; one more is refused, so a runaway caller cannot exhaust the proxy. */
export const MAX_LIVE_RUNS = 10_000;
/** host:port pairs one Run's own allowlist may hold. */
export const MAX_ALLOWLIST_ENTRIES = 256;
