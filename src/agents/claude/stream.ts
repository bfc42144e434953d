// Reads `claude -p --output-format stream-json --verbose` into the shared agent result. The
// terminal `result` record decides, from its structured fields first: `subtype`, `is_error`
// (which claude sets with subtype "success" on API failures), `api_error_status`, and the
// synthetic assistant message's `error`. Text is classified only when no field says more.
// Reading stops at that record: whatever claude does on its way out cannot change the answer.

import { classifyApiFailure, type Classified } from "../adapter/index.js";
import { arr, emitter, num, obj, readRecords, str, tooNoisyMessage, type RecordVerdict } from "../adapter/index.js";
import type { AgentResult, AgentUsage, StreamParseOptions } from "../adapter/index.js";

/** claude's `error` on its synthetic assistant message, to a reason. */
const ASSISTANT_ERRORS: Readonly<Record<string, Classified>> = {
  authentication_failed: { reason: "credential_refused", retryable: false },
  billing_error: { reason: "quota_exceeded", retryable: false },
  rate_limit: { reason: "rate_limited", retryable: true },
  server_error: { reason: "overloaded", retryable: true },
  overloaded: { reason: "overloaded", retryable: true },
};

function claudeUsage(value: unknown): AgentUsage | undefined {
  const usage = obj(value);
  if (usage === undefined) return undefined;
  return {
    inputTokens: num(usage["input_tokens"]) ?? 0,
    outputTokens: num(usage["output_tokens"]) ?? 0,
    cacheReadTokens: num(usage["cache_read_input_tokens"]) ?? 0,
    cacheWriteTokens: num(usage["cache_creation_input_tokens"]) ?? 0,
  };
}

function toolResultText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  const texts = arr(content)
    .map((part) => str(obj(part)?.["text"]))
    .filter((t): t is string => t !== undefined);
  return texts.length > 0 ? texts.join("\n") : undefined;
}

export async function parseClaudeStream(source: AsyncIterable<Uint8Array>, options: StreamParseOptions = {}): Promise<AgentResult> {
  const emit = emitter(options);
  let sessionId: string | undefined;
  let model: string | undefined;
  let lastText: string | undefined;
  let apiError: { readonly error?: string; readonly status?: number; readonly text?: string } | undefined;
  let terminal: AgentResult | undefined;
  // Each model response is one assistant message (its records share the message's id); its usage
  // is the response's, repeated on each record. Totals so far are the sum over messages.
  const usageByMessage = new Map<string, AgentUsage>();

  const onResult = (record: Record<string, unknown>): AgentResult => {
    const subtype = str(record["subtype"]);
    const isError = record["is_error"] === true;
    const usage = claudeUsage(record["usage"]);
    const resultText = str(record["result"]);
    const facts = {
      ...((str(record["session_id"]) ?? sessionId) ? { sessionId: (str(record["session_id"]) ?? sessionId) as string } : {}),
      ...(num(record["num_turns"]) === undefined ? {} : { numTurns: num(record["num_turns"]) as number }),
      ...(usage === undefined ? {} : { usage }),
      ...(num(record["total_cost_usd"]) === undefined ? {} : { costUsd: num(record["total_cost_usd"]) as number }),
      ...(model === undefined ? {} : { model }),
    };
    if (usage !== undefined) emit?.({ type: "usage", usage });
    if (subtype === "success" && !isError) {
      return { ok: true, reason: "completed", ...((resultText ?? lastText) === undefined ? {} : { text: (resultText ?? lastText) as string }), ...facts };
    }
    if (subtype === "error_max_turns" || str(record["terminal_reason"]) === "max_turns") {
      const message = arr(record["errors"]).map(String).join("; ") || "the agent reached its turn limit";
      return { ok: false, reason: "max_turns", error: message, ...(lastText === undefined ? {} : { text: lastText }), ...facts };
    }
    if (subtype === "error_max_budget_usd" || str(record["terminal_reason"]) === "budget_exhausted") {
      const message = arr(record["errors"]).map(String).join("; ") || "the agent reached its --max-budget-usd";
      return { ok: false, reason: "budget_exceeded", retryable: false, error: message, ...(lastText === undefined ? {} : { text: lastText }), ...facts };
    }
    const status = num(record["api_error_status"]) ?? apiError?.status;
    const message = resultText ?? apiError?.text ?? (arr(record["errors"]).map(String).join("; ") || `claude ended with subtype ${JSON.stringify(subtype)}`);
    const known = apiError?.error === undefined ? undefined : ASSISTANT_ERRORS[apiError.error];
    const classified = known ?? classifyApiFailure(status, message);
    const resetAt = classified.resetAt ?? (classified.reason === "rate_limited" ? classifyApiFailure(429, message).resetAt : undefined);
    return {
      ok: false,
      reason: classified.reason,
      retryable: classified.retryable,
      error: message,
      ...(resetAt === undefined ? {} : { resetAt }),
      ...facts,
    };
  };

  const tally = await readRecords(source, options, (record): RecordVerdict => {
    const type = str(record["type"]);
    if (type === "system") {
      const subtype = str(record["subtype"]);
      if (subtype === "init") {
        sessionId = str(record["session_id"]);
        model = str(record["model"]);
        const tools = arr(record["tools"]).filter((t): t is string => typeof t === "string");
        emit?.({ type: "init", ...(sessionId === undefined ? {} : { sessionId }), ...(model === undefined ? {} : { model }), tools });
      } else if (subtype === "api_retry") {
        emit?.({
          type: "error",
          message: `retrying after ${String(record["error_status"] ?? "an error")} (${String(record["error"] ?? "")}), attempt ${String(record["attempt"])} of ${String(record["max_retries"])}`,
        });
      }
    } else if (type === "assistant") {
      const message = obj(record["message"]);
      const content = arr(message?.["content"]);
      if (record["is_api_error_message"] === true || str(record["error"]) !== undefined) {
        const text = content
          .map((b) => str(obj(b)?.["text"]))
          .filter((t) => t !== undefined)
          .join("\n");
        apiError = {
          ...(str(record["error"]) === undefined ? {} : { error: str(record["error"]) as string }),
          ...(num(record["api_error_status"]) === undefined ? {} : { status: num(record["api_error_status"]) as number }),
          text,
        };
        emit?.({ type: "error", message: text });
        return undefined;
      }
      // Turns and usage so far are only ever events: nobody listening, nothing to count.
      const messageId = emit === undefined ? undefined : str(message?.["id"]);
      if (messageId !== undefined) {
        if (!usageByMessage.has(messageId)) {
          usageByMessage.set(messageId, ZERO_USAGE);
          emit?.({ type: "turn", number: usageByMessage.size });
        }
        const messageUsage = claudeUsage(message?.["usage"]);
        if (messageUsage !== undefined) {
          usageByMessage.set(messageId, messageUsage);
          emit?.({ type: "usage", usage: sumUsage(usageByMessage.values()) });
        }
      }
      for (const part of content) {
        const block = obj(part);
        const blockType = str(block?.["type"]);
        const blockText = blockType === "text" ? str(block?.["text"]) : undefined;
        if (blockText !== undefined) {
          lastText = blockText;
          emit?.({ type: "assistant_text", text: lastText });
        } else if (blockType === "tool_use") {
          const id = str(block?.["id"]);
          emit?.({ type: "tool_call", ...(id === undefined ? {} : { id }), name: str(block?.["name"]) ?? "unknown", input: block?.["input"] });
        }
      }
    } else if (type === "user") {
      // A tool's result is only ever an event: nobody listening, nothing to read.
      if (emit === undefined) return undefined;
      for (const part of arr(obj(record["message"])?.["content"])) {
        const block = obj(part);
        if (str(block?.["type"]) !== "tool_result") continue;
        const id = str(block?.["tool_use_id"]);
        const text = toolResultText(block?.["content"]);
        emit?.({ type: "tool_result", ...(id === undefined ? {} : { id }), isError: block?.["is_error"] === true, ...(text === undefined ? {} : { text }) });
      }
    } else if (type === "result") {
      terminal = onResult(record);
      emit?.({ type: "result", result: terminal });
      return "terminal";
    }
    return undefined;
  });

  const counts = {
    ...(tally.noiseLines > 0 ? { noiseLines: tally.noiseLines } : {}),
    ...(tally.oversizedLines > 0 ? { oversizedLines: tally.oversizedLines } : {}),
  };
  if (tally.tooNoisy && terminal === undefined) {
    return { ok: false, reason: "protocol_error", error: tooNoisyMessage("claude", options, tally.firstNoise), ...counts };
  }
  if (terminal === undefined) {
    const error = apiError?.text ?? "claude's stream ended without its result record";
    const partial = {
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(model === undefined ? {} : { model }),
      ...(lastText === undefined ? {} : { text: lastText }),
    };
    const result: AgentResult = { ok: false, reason: "no_result", error, ...partial, ...counts };
    emit?.({ type: "result", result });
    return result;
  }
  return { ...terminal, ...counts };
}

const ZERO_USAGE: AgentUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function sumUsage(all: Iterable<AgentUsage>): AgentUsage {
  let total = ZERO_USAGE;
  for (const u of all) {
    total = {
      inputTokens: total.inputTokens + u.inputTokens,
      outputTokens: total.outputTokens + u.outputTokens,
      cacheReadTokens: total.cacheReadTokens + u.cacheReadTokens,
      cacheWriteTokens: total.cacheWriteTokens + u.cacheWriteTokens,
    };
  }
  return total;
}
