// Bounds of reading an agent's stdout as JSON lines. Each has a named constant and a clear
// effect when hit: an oversized line is counted and skipped, too much noise is a protocol error.

const MiB = 1024 * 1024;

/** One line of an agent's JSON stream; longer lines are counted and skipped, never buffered whole. */
export const MAX_LINE_BYTES = 16 * MiB;
/** Lines that are not JSON objects tolerated before the stream is a `protocol_error`. */
export const MAX_NOISE_LINES = 200;
