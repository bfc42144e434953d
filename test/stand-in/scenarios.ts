// The stand-in model's scenarios: what each one answers is decided here and nowhere else, so the
// fixtures, the end-to-end tests and the stand-in's own tests agree on the expected text.
// Invariant: every scenario is answered from the request alone (no server-side turn counter), so
// a CLI's side requests or retries cannot shift a conversation.

/** Every scenario, in the order fixtures are captured. */
export const SCENARIOS = [
  "plain",
  "non_ascii",
  "tool_write_bash",
  "max_turns",
  "status_401",
  "status_429",
  "status_529",
  "status_500",
  "quota",
  "hang",
] as const;

export type Scenario = (typeof SCENARIOS)[number];

/** One line per scenario: what the stand-in does for both APIs. */
export const SCENARIO_DESCRIPTIONS: Readonly<Record<Scenario, string>> = {
  plain: "answers PLAIN_ANSWER, a short English sentence, in one text block",
  non_ascii: "answers NON_ASCII_ANSWER: é, 日本語, an emoji outside the BMP and U+2028 inside one text block",
  tool_write_bash:
    "claude: a Write tool_use creating <cwd>/out/answer.txt (or the path of `[stand-in-write:PATH]`), then a Bash tool_use running `echo from-bash`, then TOOL_FINAL_ANSWER; codex: one shell function call writing that file and echoing from-bash, then TOOL_FINAL_ANSWER",
  max_turns:
    "always answers with one more tool call (Bash / shell `echo again`; claude's preceded by the text loopText(n)), so the CLI stops at its turn limit",
  status_401: "HTTP 401: Anthropic authentication_error, OpenAI invalid_api_key",
  status_429:
    "HTTP 429 with retry-after and reset headers (Anthropic: anthropic-ratelimit-*-reset; OpenAI: x-ratelimit-reset-*) and an error message naming the reset time",
  status_529: "Anthropic: HTTP 529 overloaded_error; OpenAI (which has no 529): HTTP 503 server_is_overloaded",
  status_500: "HTTP 500: Anthropic api_error, OpenAI server_error",
  quota: "Anthropic: HTTP 400 invalid_request_error 'Your credit balance is too low ...'; OpenAI: HTTP 429 insufficient_quota",
  hang: "accepts the request and never answers (not even headers) until the server is closed",
};

export const PLAIN_ANSWER = "The capital of France is Paris.";
export const NON_ASCII_ANSWER = "Café au lait, 日本語のテキスト, emoji 🦀🎉 and a line\u2028separator.";
export const TOOL_FINAL_ANSWER = "I wrote out/answer.txt and ran the command; it printed from-bash.";
/** Where tool_write_bash writes unless the prompt names another path with `[stand-in-write:PATH]`. */
export const DEFAULT_WRITE_PATH = "out/answer.txt";

/**
 * The file tool_write_bash writes, relative to the agent's working directory: `[stand-in-write:PATH]`
 * in the request (a relative path of plain names, e.g. README.md to edit an input), else out/answer.txt.
 */
export function writePathOf(body: Readonly<Record<string, unknown>>): string {
  const named = /\[stand-in-write:([A-Za-z0-9_./-]{1,128})\]/.exec(JSON.stringify(body))?.[1];
  if (named === undefined) return DEFAULT_WRITE_PATH;
  return named.split("/").every((part) => part !== "" && part !== "." && part !== "..") ? named : DEFAULT_WRITE_PATH;
}
/** What claude's Write tool puts in out/answer.txt. */
export const WRITTEN_FILE_TEXT = "written by the stand-in model\n";
/** What codex's shell call puts in out/answer.txt. */
export const CODEX_WRITTEN_FILE_TEXT = "written by codex\n";
export const BASH_COMMAND = "echo from-bash";
export const LOOP_COMMAND = "echo again";
/** What claude's stand-in says before its nth call in max_turns. */
export function loopText(n: number): string {
  return `Loop turn ${n}: checking once more.`;
}
/** Side requests (no tools offered, e.g. a title) get this in every non-error scenario. */
export const SIDE_ANSWER = "Stand-in side answer";

/**
 * `[stand-in-delegate]` in a claude request, whatever the scenario: the model hands a task to a caged
 * agent through agentcage's MCP server (an MCP server named agentcage, so claude names its tool
 * DELEGATE_TOOL), calling it once with DELEGATED_PROMPT, then answers delegatedAnswer of what came back.
 */
export const DELEGATE_TOOL = "mcp__agentcage__run_agent";
/** What the delegating model asks the caged agent: the plain scenario's question. */
export const DELEGATED_PROMPT = "[stand-in:plain] What is the capital of France?";
/** The delegating model's final answer, quoting the caged agent's answer (its Outcome's result.text) from the tool result. */
export function delegatedAnswer(answer: string): string {
  return `The caged agent answered: ${answer}`;
}

/** Seconds a client is told to wait in status_429; the reset time is this far after the answer. */
export const RETRY_AFTER_SECONDS = 30;

export function isScenario(value: string): value is Scenario {
  return (SCENARIOS as readonly string[]).includes(value);
}

/** Scenarios whose every model call fails with an HTTP status. */
export function isStatusScenario(scenario: Scenario): boolean {
  return scenario.startsWith("status_") || scenario === "quota";
}

/** Token counts every model answer reports, so fixtures carry non-zero cache fields. */
export const ANTHROPIC_USAGE = {
  input_tokens: 21,
  cache_creation_input_tokens: 1200,
  cache_read_input_tokens: 3400,
  output_tokens: 17,
} as const;
export const OPENAI_USAGE = {
  input_tokens: 130,
  cached_tokens: 64,
  output_tokens: 17,
  reasoning_tokens: 5,
} as const;
