/**
 * The masker: secret values out of every text the project writes (log lines, Run records, error
 * messages, events, Outcomes), in the spellings an agent may print them in too (JSON-escaped,
 * base64 and base64url at any alignment, hex, percent-encoded). A leaf: it imports nothing of the
 * project, and each Run has its own.
 *
 * ```ts
 * const masker = createMasker(["sk-live-0123456789"]);
 * masker.mask("key sk-live-0123456789"); // "key [REDACTED]"
 * masker.mask("b64 c2stbGl2ZS0wMTIzNDU2Nzg5"); // "b64 [REDACTED]"
 * ```
 */
export type { Masker } from "./masker.js";
export { createMasker, REDACTED } from "./masker.js";
export { createStreamMasker, maskingStream } from "./stream.js";
export { MAX_ENCODED_VALUE_BYTES, MIN_MASKED_VALUE_LENGTH } from "./limits.js";
