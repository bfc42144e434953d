// The one typed result both CLIs' streams are read into, and the events a caller sees while
// they are read. The reasons are ranked by what a caller can do about them.

import type { ReaderVerdict } from "../runtime/index.js";

export const AGENT_REASONS = [
  /** The agent answered. */
  "completed",
  /** The agent stopped at its turn limit before answering. */
  "max_turns",
  /** 401/403 or an authentication failure: fix the credential; retrying will not help. */
  "credential_refused",
  /** 429: retry after `resetAt` when known. */
  "rate_limited",
  /** 529 or another 5xx: retryable. */
  "overloaded",
  /** The account is out of credit or quota: retrying will not help. */
  "quota_exceeded",
  /** Another API error. */
  "api_error",
  /** The stream ended without its terminal record: never a success. */
  "no_result",
  /** The stream was not what this CLI prints (too much noise, a malformed terminal record). */
  "protocol_error",
] as const;

export type AgentReason = (typeof AGENT_REASONS)[number];

export type AgentUsage = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
};

export type AgentResult = ReaderVerdict & {
  readonly reason: AgentReason;
  /** The agent's final answer. */
  readonly text?: string;
  readonly sessionId?: string;
  readonly numTurns?: number;
  readonly usage?: AgentUsage;
  readonly costUsd?: number;
  readonly model?: string;
  /** When a rate limit resets, as the API said it (ISO 8601), when it said. */
  readonly resetAt?: string;
  /** Whether the same request may succeed later (rate limits, overloads). */
  readonly retryable?: boolean;
  /** Lines that were not JSON, and lines over the line cap, seen and skipped. */
  readonly noiseLines?: number;
  readonly oversizedLines?: number;
};

export type AgentEvent =
  | { readonly type: "init"; readonly sessionId?: string; readonly model?: string; readonly tools?: readonly string[] }
  | { readonly type: "assistant_text"; readonly text: string }
  | { readonly type: "tool_call"; readonly id?: string; readonly name: string; readonly input?: unknown }
  | { readonly type: "tool_result"; readonly id?: string; readonly isError: boolean; readonly text?: string }
  | { readonly type: "usage"; readonly usage: AgentUsage }
  | { readonly type: "result"; readonly result: AgentResult }
  | { readonly type: "error"; readonly message: string };

export type StreamParseOptions = {
  /** Called for each event as it is parsed, so a caller can show progress live. */
  readonly onEvent?: (event: AgentEvent) => void;
  /** Default MAX_LINE_BYTES. */
  readonly maxLineBytes?: number;
  /** Default MAX_NOISE_LINES. */
  readonly maxNoiseLines?: number;
};
