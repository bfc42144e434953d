// Reads `codex exec --json` into the shared agent result. `turn.completed` ends a good turn and
// carries the Run's usage; `turn.failed` ends a bad one, and its `error.message` (codex's own
// rewording of the API's answer) is what is classified. Reading stops at either: `codex exec` runs
// one turn, and whatever codex does on its way out (an upload, a sync) cannot change the answer.

import { classifyApiFailure, type Classified } from "../adapter/index.js";
import { emitter, num, obj, readRecords, str, tooNoisyMessage, type RecordVerdict } from "../adapter/index.js";
import type { AgentResult, AgentUsage, StreamParseOptions } from "../adapter/index.js";

export type CodexParseOptions = StreamParseOptions & {
  /** codex never names its model in the stream; the adapter passes the one it asked for. */
  readonly model?: string;
};

/** How codex rewords what it got from the API, to a reason. */
const CODEX_MESSAGES: ReadonlyArray<readonly [RegExp, Classified]> = [
  [/quota exceeded|billing details|insufficient_quota/i, { reason: "quota_exceeded", retryable: false }],
  [/at capacity|high demand|server_is_overloaded/i, { reason: "overloaded", retryable: true }],
];

/** codex's usage, the four kept apart: its input_tokens include its cached_input_tokens (OpenAI's way), as the egress proxy counts them too. */
function codexUsage(value: unknown): AgentUsage | undefined {
  const usage = obj(value);
  if (usage === undefined) return undefined;
  const input = num(usage["input_tokens"]) ?? 0;
  const cached = Math.min(input, num(usage["cached_input_tokens"]) ?? 0);
  return {
    inputTokens: input - cached,
    outputTokens: num(usage["output_tokens"]) ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: num(usage["cache_write_input_tokens"]) ?? 0,
  };
}

/**
 * What codex says while it retries an endpoint it cannot reach at all: a name that does not resolve
 * (no network in the cage), a refused connection. Retrying cannot help inside the cage, and codex
 * would spend the Run's whole timeout on it (five reconnects, a DNS wait each).
 */
const UNREACHABLE =
  /failed to lookup address information|dns error|Connection refused|error sending request|error trying to connect|No route to host|Network is unreachable/i;

export function classifyCodexFailure(message: string): Classified {
  for (const [pattern, classified] of CODEX_MESSAGES) if (pattern.test(message)) return classified;
  // "unexpected status 401 Unauthorized: ...", "exceeded retry limit, last status: 429 ..."
  const status = /\bstatus:?\s+(\d{3})\b/i.exec(message)?.[1];
  return classifyApiFailure(status === undefined ? undefined : Number(status), message);
}

export async function parseCodexStream(source: AsyncIterable<Uint8Array>, options: CodexParseOptions = {}): Promise<AgentResult> {
  const emit = emitter(options);
  let sessionId: string | undefined;
  let text: string | undefined;
  let usage: AgentUsage | undefined;
  let turns = 0;
  let lastError: string | undefined;
  let terminal: AgentResult | undefined;
  const facts = () => ({
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(turns === 0 ? {} : { numTurns: turns }),
    ...(usage === undefined ? {} : { usage }),
    ...(options.model === undefined ? {} : { model: options.model }),
  });

  let completedItems = 0;
  const tally = await readRecords(source, options, (record): RecordVerdict => {
    // The switch compares the field itself (a case is a string, so a non-string matches none);
    // the item is read only by the cases that have one: most lines are items, read once each.
    switch (record["type"]) {
      case "thread.started":
        sessionId = str(record["thread_id"]);
        emit?.({ type: "init", ...(sessionId === undefined ? {} : { sessionId }), ...(options.model === undefined ? {} : { model: options.model }) });
        break;
      case "item.started": {
        if (emit === undefined) break;
        const item = obj(record["item"]);
        const itemType = str(item?.["type"]);
        const id = str(item?.["id"]);
        if (itemType === "command_execution" || itemType === "mcp_tool_call" || itemType === "web_search") {
          emit({
            type: "tool_call",
            ...(id === undefined ? {} : { id }),
            name: itemType === "command_execution" ? "shell" : (str(item?.["tool"]) ?? itemType),
            input: item?.["command"] ?? item?.["arguments"] ?? item?.["query"],
          });
        }
        break;
      }
      case "item.completed": {
        const item = obj(record["item"]);
        const itemType = str(item?.["type"]);
        const id = str(item?.["id"]);
        // Each item codex completes is a model response acted on: what a budget counts as a turn.
        if (
          itemType === "agent_message" ||
          itemType === "command_execution" ||
          itemType === "mcp_tool_call" ||
          itemType === "file_change" ||
          itemType === "web_search"
        ) {
          completedItems += 1;
          emit?.({ type: "turn", number: completedItems });
        }
        if (itemType === "agent_message" && str(item?.["text"]) !== undefined) {
          text = str(item?.["text"]) as string;
          emit?.({ type: "assistant_text", text });
        } else if (itemType === "command_execution" || itemType === "mcp_tool_call") {
          if (emit !== undefined) {
            const output = str(item?.["aggregated_output"]);
            const exit = num(item?.["exit_code"]);
            emit({
              type: "tool_result",
              ...(id === undefined ? {} : { id }),
              isError: (exit ?? 0) !== 0 || str(item?.["status"]) === "failed",
              ...(output === undefined ? {} : { text: output }),
            });
          }
        } else if (itemType === "file_change") {
          emit?.({ type: "tool_call", ...(id === undefined ? {} : { id }), name: "file_change", input: item?.["changes"] });
        } else if (itemType === "error" && str(item?.["message"]) !== undefined) {
          emit?.({ type: "error", message: str(item?.["message"]) as string });
        }
        break;
      }
      case "turn.completed": {
        usage = codexUsage(record["usage"]) ?? usage;
        turns += 1;
        if (usage !== undefined) emit?.({ type: "usage", usage });
        terminal = { ok: true, reason: "completed", ...(text === undefined ? {} : { text }), ...facts() };
        return "terminal";
      }
      case "turn.failed": {
        const message = str(obj(record["error"])?.["message"]) ?? lastError ?? "codex reported a failed turn";
        const classified = classifyCodexFailure(message);
        turns += 1;
        terminal = {
          ok: false,
          reason: classified.reason,
          retryable: classified.retryable,
          error: message,
          ...(classified.resetAt === undefined ? {} : { resetAt: classified.resetAt }),
          ...facts(),
        };
        return "terminal";
      }
      case "error":
        lastError = str(record["message"]);
        if (lastError !== undefined) emit?.({ type: "error", message: lastError });
        if (lastError !== undefined && UNREACHABLE.test(lastError)) {
          terminal = {
            ok: false,
            reason: "api_error",
            retryable: true,
            error: `codex cannot reach its model's endpoint: ${lastError}; check the agent's networks and the provider's address`,
            ...facts(),
          };
          return "terminal";
        }
        break;
    }
    return undefined;
  });

  const counts = {
    ...(tally.noiseLines > 0 ? { noiseLines: tally.noiseLines } : {}),
    ...(tally.oversizedLines > 0 ? { oversizedLines: tally.oversizedLines } : {}),
  };
  let result: AgentResult;
  if (tally.tooNoisy && terminal === undefined)
    result = { ok: false, reason: "protocol_error", error: tooNoisyMessage("codex", options, tally.firstNoise), ...counts };
  else if (terminal === undefined) {
    result = {
      ok: false,
      reason: "no_result",
      error: lastError ?? "codex's stream ended without turn.completed or turn.failed",
      ...(text === undefined ? {} : { text }),
      ...facts(),
      ...counts,
    };
  } else result = { ...terminal, ...counts };
  emit?.({ type: "result", result });
  return result;
}
