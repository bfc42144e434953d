// The one typed result both CLIs' streams are read into, and the events a caller sees while
// they are read. The reasons are ranked by what a caller can do about them.

import type { ReaderVerdict } from "../../plan/index.js";

/** Every way an agent's stream can end, as both CLIs' readers say it, ranked by what a caller can do about it. */
export const AGENT_REASONS = [
  /** The agent answered. */
  "completed",
  /** The agent stopped at its turn limit before answering. */
  "max_turns",
  /** The CLI stopped itself at its own spending cap (claude's --max-budget-usd): the Run ends budget_exceeded. */
  "budget_exceeded",
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

/** How the agent's stream ended (one of AGENT_REASONS); the Run's own end is the Outcome's `reason`. */
export type AgentReason = (typeof AGENT_REASONS)[number];

/** Tokens as the CLI reported them, in all for the Run. */
export type AgentUsage = {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
};

/** What an agent CLI's stream was read into, the same for every CLI: an AgentOutcome's `result`, secrets masked. */
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

/** What a Run may spend before it is stopped as budget_exceeded; each cap is optional. */
export type AgentBudget = {
  /** Model responses (claude: assistant messages; codex: the items it completes: commands, file changes, messages). */
  readonly maxTurns?: number;
  /** Input + output tokens; cached tokens are counted apart and not in this sum. codex: held only by the egress proxy (unheldCaps). */
  readonly maxTokens?: number;
  /** Dollars: the CLI's own cost where it reports one, else estimated from the price table (src/plan/prices.ts). */
  readonly maxCostUsd?: number;
  /** Seconds from the container's start; unlike timeoutSeconds, the Run ends as budget_exceeded with what it has. */
  readonly maxWallSeconds?: number;
};

/** A budget's caps, each as its name in AgentBudget. */
export type BudgetCap = keyof AgentBudget;

/** What a Run has spent so far, against its budget. */
export type BudgetUse = {
  readonly turns: number;
  readonly tokens: number;
  readonly cachedTokens: number;
  readonly costUsd?: number;
  /** Where the cost comes from: the CLI's own figure, the price table for the model, or the dearest price when the model is unknown. */
  readonly costFrom?: "cli" | "price_table" | "dearest_price";
  readonly wallSeconds: number;
};

/** Tokens as the provider reported them to the egress proxy; the four never overlap. */
export type MeteredUsage = { readonly inputTokens: number; readonly outputTokens: number; readonly cacheReadTokens: number; readonly cacheWriteTokens: number };

/** What the agent is doing as its stream is read, for a caller's `onEvent`: one kind per `type`, secrets masked. */
export type AgentEvent =
  | { readonly type: "init"; readonly sessionId?: string; readonly model?: string; readonly tools?: readonly string[] }
  /** A model response began (the nth). */
  | { readonly type: "turn"; readonly number: number }
  | { readonly type: "assistant_text"; readonly text: string }
  | { readonly type: "tool_call"; readonly id?: string; readonly name: string; readonly input?: unknown }
  | { readonly type: "tool_result"; readonly id?: string; readonly isError: boolean; readonly text?: string }
  /** Tokens so far, in all (each usage event replaces the one before). */
  | { readonly type: "usage"; readonly usage: AgentUsage }
  /** Spending against the request's budget, at most once a second, and once more when a cap is passed. */
  | { readonly type: "budget"; readonly used: BudgetUse; readonly caps: AgentBudget }
  /** Half the stall time passed with no output and no CPU used; at stallSeconds the Run is stopped. */
  | { readonly type: "stall_warning"; readonly silentSeconds: number; readonly stallSeconds: number; readonly lastEvent?: string }
  /** Under the egress proxy: what it has metered so far, from the provider's own answers (each replaces the one before). */
  | { readonly type: "metered"; readonly turns: number; readonly usage: MeteredUsage; readonly costUsd: number; readonly refused: number }
  /**
   * Under the egress proxy: it has not answered a reading of the meter for this long, yet it lives
   * (its container runs, its socket accepts): slow is not gone, so the Run waits for it. Once a reading.
   */
  | { readonly type: "egress_slow"; readonly waitedSeconds: number }
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
