// A stand-in for the Anthropic Messages API and the OpenAI Responses API, so the real claude and
// codex CLIs can run fully offline in tests and fixture captures.
//
//   const model = await startStandInModel({ scenario: "plain" });
//   // claude: ANTHROPIC_BASE_URL=model.url; codex: a provider with base_url = `${model.url}/v1`
//   expect(model.requests.some((r) => r.path === "/v1/messages")).toBe(true);
//   await model.close();
export type { StandInModel } from "./server.js";
export type { Scenario } from "./scenarios.js";
export { REDACTED, startStandInModel } from "./server.js";
export {
  ANTHROPIC_USAGE,
  BASH_COMMAND,
  CODEX_WRITTEN_FILE_TEXT,
  DELEGATE_TOOL,
  DELEGATED_PROMPT,
  delegatedAnswer,
  NON_ASCII_ANSWER,
  OPENAI_USAGE,
  PLAIN_ANSWER,
  RETRY_AFTER_SECONDS,
  SCENARIOS,
  TOOL_FINAL_ANSWER,
  WRITTEN_FILE_TEXT,
  isScenario,
  loopText,
} from "./scenarios.js";
