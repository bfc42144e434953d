// The Anthropic Messages API as the stand-in speaks it: what a scenario answers to one request
// (`anthropicAnswer`, pure) and how that answer is written as SSE or JSON.
// Invariant: the answer depends only on the scenario, the request body and the clock, so the
// same conversation always gets the same answer.
import type { ServerResponse } from "node:http";
import {
  delegatedAnswer,
  loopText,
  writePathOf,
  ANTHROPIC_USAGE,
  BASH_COMMAND,
  DELEGATE_TOOL,
  DELEGATED_PROMPT,
  LOOP_COMMAND,
  NON_ASCII_ANSWER,
  PLAIN_ANSWER,
  RETRY_AFTER_SECONDS,
  SIDE_ANSWER,
  TOOL_FINAL_ANSWER,
  WRITTEN_FILE_TEXT,
  type Scenario,
} from "./scenarios.js";
import { deltasOf, startEventStream, writeEvent } from "./sse.js";

export type AnthropicBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: Readonly<Record<string, unknown>> };

export type AnthropicAnswer =
  | { readonly kind: "message"; readonly content: readonly AnthropicBlock[]; readonly stopReason: "end_turn" | "tool_use" }
  | { readonly kind: "error"; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: unknown }
  | { readonly kind: "hang" };

export const WRITE_TOOL_ID = "toolu_standin_write";
export const BASH_TOOL_ID = "toolu_standin_bash";
const DELEGATE_TOOL_ID = "toolu_standin_delegate";
const LOOP_TOOL_ID_PREFIX = "toolu_standin_loop_";

type Body = Readonly<Record<string, unknown>>;

function toolNames(body: Body): string[] {
  const tools = Array.isArray(body["tools"]) ? (body["tools"] as unknown[]) : [];
  return tools.flatMap((tool) =>
    typeof tool === "object" && tool !== null && typeof (tool as Body)["name"] === "string" ? [(tool as Body)["name"] as string] : [],
  );
}

/** Every tool_use_id answered with a tool_result anywhere in the conversation. */
function answeredToolIds(body: Body): Set<string> {
  const ids = new Set<string>();
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as unknown[]) : [];
  for (const message of messages) {
    const content = typeof message === "object" && message !== null ? (message as Body)["content"] : undefined;
    if (!Array.isArray(content)) continue;
    for (const block of content as unknown[]) {
      if (typeof block !== "object" || block === null) continue;
      const b = block as Body;
      if (b["type"] === "tool_result" && typeof b["tool_use_id"] === "string") ids.add(b["tool_use_id"]);
    }
  }
  return ids;
}

/** The text of the tool_result answering `id`, when the conversation holds one. */
function toolResultText(body: Body, id: string): string | undefined {
  const messages = Array.isArray(body["messages"]) ? (body["messages"] as unknown[]) : [];
  for (const message of messages) {
    const content = typeof message === "object" && message !== null ? (message as Body)["content"] : undefined;
    if (!Array.isArray(content)) continue;
    for (const block of content as Body[]) {
      if (block?.["type"] !== "tool_result" || block["tool_use_id"] !== id) continue;
      const inner = block["content"];
      if (typeof inner === "string") return inner;
      return Array.isArray(inner) ? (inner as Body[]).map((part) => (typeof part?.["text"] === "string" ? part["text"] : "")).join("") : "";
    }
  }
  return undefined;
}

/**
 * `[stand-in-delegate]`: one call of DELEGATE_TOOL, then the caged agent's answer quoted from its
 * result (a run_agent result is the Run as JSON; anything else is quoted as it came). Undefined
 * when the request does not ask for it; a side request (no tools) gets SIDE_ANSWER.
 */
function delegation(body: Body): AnthropicAnswer | undefined {
  if (!JSON.stringify(body["messages"] ?? "").includes("[stand-in-delegate]")) return undefined;
  const tools = toolNames(body);
  if (tools.length === 0) return text(SIDE_ANSWER);
  if (!tools.includes(DELEGATE_TOOL)) return text(`No tool ${DELEGATE_TOOL} was offered; the tools were ${tools.join(", ")}.`);
  const result = toolResultText(body, DELEGATE_TOOL_ID);
  if (result === undefined) return toolUse(DELEGATE_TOOL_ID, DELEGATE_TOOL, { cli: "claude", prompt: DELEGATED_PROMPT });
  let answer = result;
  try {
    const run = JSON.parse(result) as { outcome?: { result?: { text?: unknown } } };
    if (typeof run.outcome?.result?.text === "string") answer = run.outcome.result.text;
  } catch {
    // Not a Run as JSON (a refusal, say): quoted as it came.
  }
  return text(delegatedAnswer(answer));
}

/** claude names its working directory in its system prompt; the Write tool needs it absolute. */
export function workingDirectoryOf(body: Body): string | undefined {
  const match = /[Ww]orking directory: (\/[^\s"\\]*)/.exec(JSON.stringify(body["system"] ?? "") + JSON.stringify(body["messages"] ?? ""));
  return match?.[1];
}

/**
 * The command a request names for tool_write_bash's Bash call instead of BASH_COMMAND, written
 * `[stand-in-bash:COMMAND]` in the prompt (no "]" or quote in it): a test's agent then does what the
 * test needs (write past its bound, say) through the real CLI's tool.
 */
export function bashCommandOf(body: Body): string | undefined {
  return /\[stand-in-bash:([^\]"\\]+)\]/.exec(JSON.stringify(body["messages"] ?? ""))?.[1];
}

function text(answer: string): AnthropicAnswer {
  return { kind: "message", content: [{ type: "text", text: answer }], stopReason: "end_turn" };
}

function toolUse(id: string, name: string, input: Record<string, unknown>): AnthropicAnswer {
  return { kind: "message", content: [{ type: "tool_use", id, name, input }], stopReason: "tool_use" };
}

function error(status: number, type: string, message: string, headers: Record<string, string> = {}): AnthropicAnswer {
  return {
    kind: "error",
    status,
    headers: { "content-type": "application/json", ...headers },
    body: { type: "error", error: { type, message }, request_id: "req_standin_error" },
  };
}

export function anthropicAnswer(scenario: Scenario, body: Body, now: Date): AnthropicAnswer {
  const delegated = delegation(body);
  if (delegated !== undefined) return delegated;
  const tools = toolNames(body);
  switch (scenario) {
    case "plain":
      return text(PLAIN_ANSWER);
    case "non_ascii":
      return text(NON_ASCII_ANSWER);
    case "tool_write_bash": {
      if (!tools.includes("Write") || !tools.includes("Bash")) return text(SIDE_ANSWER);
      const answered = answeredToolIds(body);
      if (!answered.has(WRITE_TOOL_ID)) {
        const cwd = workingDirectoryOf(body);
        return toolUse(WRITE_TOOL_ID, "Write", {
          file_path: cwd === undefined ? writePathOf(body) : `${cwd}/${writePathOf(body)}`,
          content: WRITTEN_FILE_TEXT,
        });
      }
      if (!answered.has(BASH_TOOL_ID)) {
        return toolUse(BASH_TOOL_ID, "Bash", { command: bashCommandOf(body) ?? BASH_COMMAND, description: "Print from-bash" });
      }
      return text(TOOL_FINAL_ANSWER);
    }
    case "max_turns": {
      if (!tools.includes("Bash")) return text(SIDE_ANSWER);
      const n = answeredToolIds(body).size + 1;
      // A word before each call, as a real agent says what it is about to do: the answer so far of a Run stopped mid-loop.
      const call = toolUse(`${LOOP_TOOL_ID_PREFIX}${n}`, "Bash", { command: LOOP_COMMAND, description: `Loop turn ${n}` });
      return call.kind === "message" ? { ...call, content: [{ type: "text", text: loopText(n) }, ...call.content] } : call;
    }
    case "status_401":
      return error(401, "authentication_error", "invalid x-api-key");
    case "status_429": {
      const reset = new Date(Math.ceil(now.getTime() / 1000 + RETRY_AFTER_SECONDS) * 1000).toISOString().replace(".000Z", "Z");
      const resetHeaders: Record<string, string> = { "retry-after": String(RETRY_AFTER_SECONDS) };
      for (const kind of ["requests", "tokens", "input-tokens", "output-tokens"]) {
        resetHeaders[`anthropic-ratelimit-${kind}-limit`] = kind === "requests" ? "50" : "40000";
        resetHeaders[`anthropic-ratelimit-${kind}-remaining`] = "0";
        resetHeaders[`anthropic-ratelimit-${kind}-reset`] = reset;
      }
      return error(
        429,
        "rate_limit_error",
        `This request would exceed the rate limit for your organization of 50 requests per minute. The limit resets at ${reset}.`,
        resetHeaders,
      );
    }
    case "status_529":
      return error(529, "overloaded_error", "Overloaded");
    case "status_500":
      return error(500, "api_error", "Internal server error");
    case "quota":
      return error(
        400,
        "invalid_request_error",
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
      );
    case "hang":
      return { kind: "hang" };
  }
}

function modelOf(body: Body): string {
  return typeof body["model"] === "string" ? body["model"] : "claude-stand-in";
}

/** Writes a message answer as the API does: SSE when the request asked to stream, else JSON. */
export function writeAnthropicMessage(res: ServerResponse, answer: Extract<AnthropicAnswer, { kind: "message" }>, body: Body, messageId: string): void {
  const model = modelOf(body);
  const headers = { "request-id": `req_${messageId}` };
  if (body["stream"] !== true) {
    res.writeHead(200, { "content-type": "application/json", ...headers });
    res.end(
      JSON.stringify({
        id: messageId,
        type: "message",
        role: "assistant",
        model,
        content: answer.content,
        stop_reason: answer.stopReason,
        stop_sequence: null,
        usage: { ...ANTHROPIC_USAGE },
      }),
    );
    return;
  }
  startEventStream(res, headers);
  writeEvent(res, "message_start", {
    type: "message_start",
    message: {
      id: messageId,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...ANTHROPIC_USAGE, output_tokens: 1 },
    },
  });
  answer.content.forEach((block, index) => {
    if (block.type === "text") {
      writeEvent(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      if (index === 0) writeEvent(res, "ping", { type: "ping" });
      for (const piece of deltasOf(block.text)) {
        writeEvent(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
      }
    } else {
      writeEvent(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      if (index === 0) writeEvent(res, "ping", { type: "ping" });
      for (const piece of deltasOf(JSON.stringify(block.input))) {
        writeEvent(res, "content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
    }
    writeEvent(res, "content_block_stop", { type: "content_block_stop", index });
  });
  writeEvent(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: answer.stopReason, stop_sequence: null },
    usage: { output_tokens: ANTHROPIC_USAGE.output_tokens },
  });
  writeEvent(res, "message_stop", { type: "message_stop" });
  res.end();
}
