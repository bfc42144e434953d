// The OpenAI Responses API as the stand-in speaks it: what a scenario answers to one request
// (`openaiAnswer`, pure) and how that answer is written as SSE or JSON.
// Invariant: the shell call is shaped after whichever shell tool the request offers, so a codex
// that renames its tool gets a plain answer instead of a call it cannot run.
import type { ServerResponse } from "node:http";
import { posix } from "node:path";
import {
  BASH_COMMAND,
  CODEX_WRITTEN_FILE_TEXT,
  LOOP_COMMAND,
  NON_ASCII_ANSWER,
  OPENAI_USAGE,
  PLAIN_ANSWER,
  RETRY_AFTER_SECONDS,
  SIDE_ANSWER,
  TOOL_FINAL_ANSWER,
  type Scenario,
  writePathOf,
} from "./scenarios.js";
import { deltasOf, startEventStream, writeEvent } from "./sse.js";

export type OpenAIOutput =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "function_call"; readonly callId: string; readonly name: string; readonly arguments: string };

export type OpenAIAnswer =
  | { readonly kind: "response"; readonly output: OpenAIOutput }
  | { readonly kind: "error"; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: unknown }
  | { readonly kind: "hang" };

export const SHELL_CALL_ID = "call_standin_shell";
const LOOP_CALL_ID_PREFIX = "call_standin_loop_";

type Body = Readonly<Record<string, unknown>>;

function toolNames(body: Body): string[] {
  const tools = Array.isArray(body["tools"]) ? (body["tools"] as unknown[]) : [];
  return tools.flatMap((tool) => {
    if (typeof tool !== "object" || tool === null) return [];
    const name = (tool as Body)["name"];
    return typeof name === "string" ? [name] : [];
  });
}

function answeredCallIds(body: Body): Set<string> {
  const ids = new Set<string>();
  const input = Array.isArray(body["input"]) ? (body["input"] as unknown[]) : [];
  for (const item of input) {
    if (typeof item !== "object" || item === null) continue;
    const i = item as Body;
    if (typeof i["type"] === "string" && i["type"].endsWith("_call_output") && typeof i["call_id"] === "string") {
      ids.add(i["call_id"]);
    }
  }
  return ids;
}

/** The function call that runs `script` with whichever shell tool this codex offers, if any. */
export function shellCall(body: Body, callId: string, script: string): OpenAIOutput | undefined {
  const names = toolNames(body);
  if (names.includes("shell_command")) {
    return { type: "function_call", callId, name: "shell_command", arguments: JSON.stringify({ command: script }) };
  }
  if (names.includes("exec_command")) {
    return { type: "function_call", callId, name: "exec_command", arguments: JSON.stringify({ cmd: script }) };
  }
  if (names.includes("shell")) {
    return { type: "function_call", callId, name: "shell", arguments: JSON.stringify({ command: ["bash", "-lc", script] }) };
  }
  return undefined;
}

function text(answer: string): OpenAIAnswer {
  return { kind: "response", output: { type: "text", text: answer } };
}

function error(status: number, type: string, code: string | null, message: string, headers: Record<string, string> = {}): OpenAIAnswer {
  return {
    kind: "error",
    status,
    headers: { "content-type": "application/json", "x-request-id": "req_standin_error", ...headers },
    body: { error: { message, type, param: null, code } },
  };
}

export function openaiAnswer(scenario: Scenario, body: Body, now: Date): OpenAIAnswer {
  switch (scenario) {
    case "plain":
      return text(PLAIN_ANSWER);
    case "non_ascii":
      return text(NON_ASCII_ANSWER);
    case "tool_write_bash": {
      if (answeredCallIds(body).has(SHELL_CALL_ID)) return text(TOOL_FINAL_ANSWER);
      const target = writePathOf(body);
      const script = `mkdir -p ${posix.dirname(target)} && printf '${CODEX_WRITTEN_FILE_TEXT.replace("\n", "\\n")}' > ${target} && ${BASH_COMMAND}`;
      const call = shellCall(body, SHELL_CALL_ID, script);
      return call === undefined ? text(SIDE_ANSWER) : { kind: "response", output: call };
    }
    case "max_turns": {
      const call = shellCall(body, `${LOOP_CALL_ID_PREFIX}${answeredCallIds(body).size + 1}`, LOOP_COMMAND);
      return call === undefined ? text(SIDE_ANSWER) : { kind: "response", output: call };
    }
    case "status_401":
      return error(
        401,
        "invalid_request_error",
        "invalid_api_key",
        "Incorrect API key provided: sk-stand*****. You can find your API key in your account settings.",
      );
    case "status_429": {
      const reset = new Date(Math.ceil(now.getTime() / 1000 + RETRY_AFTER_SECONDS) * 1000).toISOString().replace(".000Z", "Z");
      return error(
        429,
        "requests",
        "rate_limit_exceeded",
        `Rate limit reached for requests per min (RPM): Limit 50, Used 50, Requested 1. Please try again in ${RETRY_AFTER_SECONDS}s (at ${reset}).`,
        {
          "retry-after": String(RETRY_AFTER_SECONDS),
          "x-ratelimit-limit-requests": "50",
          "x-ratelimit-remaining-requests": "0",
          "x-ratelimit-reset-requests": `${RETRY_AFTER_SECONDS}s`,
          "x-ratelimit-limit-tokens": "40000",
          "x-ratelimit-remaining-tokens": "0",
          "x-ratelimit-reset-tokens": `${RETRY_AFTER_SECONDS}s`,
        },
      );
    }
    case "status_529":
      return error(503, "server_error", "server_is_overloaded", "The server is overloaded. Please try again later.");
    case "status_500":
      return error(500, "server_error", null, "The server had an error while processing your request. Sorry about that!");
    case "quota":
      return error(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details.");
    case "hang":
      return { kind: "hang" };
  }
}

function usage(): Record<string, unknown> {
  return {
    input_tokens: OPENAI_USAGE.input_tokens,
    input_tokens_details: { cached_tokens: OPENAI_USAGE.cached_tokens },
    output_tokens: OPENAI_USAGE.output_tokens,
    output_tokens_details: { reasoning_tokens: OPENAI_USAGE.reasoning_tokens },
    total_tokens: OPENAI_USAGE.input_tokens + OPENAI_USAGE.output_tokens,
  };
}

/** Writes a response as the API does: SSE when the request asked to stream, else JSON. */
export function writeOpenAIResponse(res: ServerResponse, answer: Extract<OpenAIAnswer, { kind: "response" }>, body: Body, responseId: string, now: Date): void {
  const model = typeof body["model"] === "string" ? body["model"] : "gpt-stand-in";
  const itemId = `${answer.output.type === "text" ? "msg" : "fc"}_${responseId}`;
  const done =
    answer.output.type === "text"
      ? {
          id: itemId,
          type: "message",
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: answer.output.text, annotations: [] }],
        }
      : {
          id: itemId,
          type: "function_call",
          status: "completed",
          call_id: answer.output.callId,
          name: answer.output.name,
          arguments: answer.output.arguments,
        };
  const base = {
    id: responseId,
    object: "response",
    created_at: Math.floor(now.getTime() / 1000),
    model,
    error: null,
    incomplete_details: null,
  };
  const completed = { ...base, status: "completed", output: [done], usage: usage() };
  const headers = { "x-request-id": `req_${responseId}` };
  if (body["stream"] !== true) {
    res.writeHead(200, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(completed));
    return;
  }
  startEventStream(res, headers);
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>): void => writeEvent(res, type, { type, sequence_number: seq++, ...data });
  send("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } });
  send("response.in_progress", { response: { ...base, status: "in_progress", output: [], usage: null } });
  if (answer.output.type === "text") {
    const part = { type: "output_text", text: "", annotations: [] };
    send("response.output_item.added", {
      output_index: 0,
      item: { id: itemId, type: "message", status: "in_progress", role: "assistant", content: [] },
    });
    send("response.content_part.added", { item_id: itemId, output_index: 0, content_index: 0, part });
    for (const delta of deltasOf(answer.output.text)) {
      send("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta });
    }
    send("response.output_text.done", { item_id: itemId, output_index: 0, content_index: 0, text: answer.output.text });
    send("response.content_part.done", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { ...part, text: answer.output.text },
    });
  } else {
    send("response.output_item.added", { output_index: 0, item: { ...done, status: "in_progress", arguments: "" } });
    for (const delta of deltasOf(answer.output.arguments)) {
      send("response.function_call_arguments.delta", { item_id: itemId, output_index: 0, delta });
    }
    send("response.function_call_arguments.done", { item_id: itemId, output_index: 0, arguments: answer.output.arguments });
  }
  send("response.output_item.done", { output_index: 0, item: done });
  send("response.completed", { response: completed });
  res.end();
}
