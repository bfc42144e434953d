// The command's own bounds, one place: each a named constant with its unit.
// Invariant: none of them can hold a Run back; they bound only what happens around it.

/** One OTLP export of a batch of spans is given up after this long (the endpoint does not answer). */
export const TRACE_EXPORT_TIMEOUT_MS = 5_000;
/** At exit, pending spans are flushed for at most this long; then the process exits anyway. */
export const TRACE_FLUSH_AT_EXIT_MS = 3_000;
/** The summary names at most this many files whose patch holds bidi or control characters; changes.json names them all. */
export const MAX_NAMED_BIDI_FILES = 5;
