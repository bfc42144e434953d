// The one base of every error agentcage throws at its caller: `code` is a stable name from the
// catalogue (codes.ts), `message` one sentence for a person, `cause` what it wraps, as Error has it.
// Invariant: a caller branches on `instanceof AgentcageError` and `code`, never on a message or a
// class name; each subclass declares its code as a literal, so a code outside the catalogue fails to compile.
import type { ErrorCode } from "./codes.js";

/** The base of every error agentcage throws: branch on `instanceof AgentcageError` and its `code`, never on the message. */
export abstract class AgentcageError extends Error {
  /** Which refusal this is; stable across releases, its meaning in ERROR_CODES. */
  abstract readonly code: ErrorCode;
}
