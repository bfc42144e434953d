/**
 * Errors: `AgentcageError`, the base of every error agentcage throws at its caller, and the
 * catalogue of its codes (`ERROR_CODES`), which is also what the HTTP API answers in `error`; and
 * the one sentence a value a schema refused is told in (`issueSentence`).
 * A leaf: it imports nothing from the rest of src/, and every folder may import it.
 *
 * @example
 * import { AgentcageError, validateMountTable } from "agentcage";
 *
 * try {
 *   validateMountTable({ runtimeDir: "relative/dir", entries: [] });
 * } catch (error) {
 *   if (error instanceof AgentcageError && error.code === "invalid_mount_table") console.error(error.message);
 *   else throw error;
 * }
 */
export type { ErrorCode } from "./codes.js";
export { ERROR_CODES } from "./codes.js";
export { AgentcageError } from "./agentcage-error.js";
export { issueSentence, knownKeys, quote, valueAt } from "./issue-sentence.js";
