/**
 * The masker: secret values out of every text the project writes (log lines, Run records, error
 * messages, events, Outcomes). A leaf: it imports nothing of the project, and each Run has its own.
 *
 * ```ts
 * const masker = createMasker(["sk-live-0123456789"]);
 * masker.mask("key sk-live-0123456789"); // "key [REDACTED]"
 * ```
 */
export type { Masker } from "./masker.js";
export { createMasker, REDACTED } from "./masker.js";
export { MIN_MASKED_VALUE_LENGTH } from "./limits.js";
