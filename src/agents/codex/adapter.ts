// The codex adapter: OpenAI's codex CLI as `codex exec --json`, its prompt on stdin, its JSON events
// read into the shared result; pointed at another provider (a gateway, a stand-in, the egress proxy)
// by its own `-c model_providers` setting. Invariant: every field here was checked against the
// pinned codex (images/agent/clis.env).

import type { AgentAdapter, AgentEndpoint, CodexProvider } from "../adapter/index.js";
import { codexArgs } from "./args.js";
import { CODEX_AUTH_PATH, CODEX_HOME } from "./environment.js";
import { parseCodexStream } from "./stream.js";

/** The variable codex's provider setting names for its key unless told another. */
const DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY";

export const codexAdapter: AgentAdapter = {
  cli: "codex",
  maker: "OpenAI",
  modelProvider: "openai",
  // codex 0.171.0's `model_reasoning_effort`: its model catalog's levels and the API's `none` and
  // `minimal` (it sends anything else on to the model, which refuses the request).
  efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra"],
  credentials: [
    ["OPENAI_API_KEY", "api_key"],
    ["CODEX_API_KEY", "api_key"],
  ],
  // A ChatGPT login, which wins over any API key; copied into each Run and mounted read-only.
  login: { fileName: "auth.json", agentPath: CODEX_AUTH_PATH },
  proxyTokenVariable: DEFAULT_KEY_VARIABLE,
  // Its rollouts, found with the real CLI.
  sessionPath: `${CODEX_HOME}/sessions`,
  // No turn limit of its own: the runner counts its turns from the stream.
  holdsMaxTurns: false,
  // It prints its tokens only when it ends.
  reportsTokensLive: false,
  waitsForPrompt: false,
  pin: { version: "CODEX_VERSION", integrity: "CODEX_INTEGRITY" },
  examples: ["Explain what this function does and suggest a safer version.", "What is the capital of France?"],
  endpointOf: ({ proxy, codexProvider }) => {
    if (proxy !== undefined)
      return { baseUrl: `${proxy.baseUrl}/v1`, keyVariable: DEFAULT_KEY_VARIABLE, ...(proxy.codexModel === undefined ? {} : { model: proxy.codexModel }) };
    if (codexProvider === undefined) return undefined;
    const { baseUrl, envKey, model, maxRetries } = codexProvider;
    return {
      baseUrl,
      ...(envKey === undefined ? {} : { keyVariable: envKey }),
      ...(model === undefined ? {} : { model }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
    };
  },
  // A provider of its own names the variable; otherwise the key goes where it was found.
  keyVariableOf: (found, endpoint) => (endpoint === undefined ? found : (endpoint.keyVariable ?? DEFAULT_KEY_VARIABLE)),
  environment: () => ({ CODEX_HOME }),
  plan: (request, prompt, { workdir, keepSession, endpoint }) => ({
    args: codexArgs(request, { workdir, keepSession, ...(endpoint === undefined ? {} : { provider: providerOf(endpoint) }) }),
    stdin: prompt,
    // codex never names its model in the stream: the one it was asked for.
    read: (stdout, options) => parseCodexStream(stdout, { ...options, ...(request.model === undefined ? {} : { model: request.model }) }),
  }),
};

function providerOf(endpoint: AgentEndpoint): CodexProvider {
  const { baseUrl, keyVariable, model, maxRetries } = endpoint;
  return {
    baseUrl,
    ...(keyVariable === undefined ? {} : { envKey: keyVariable }),
    ...(model === undefined ? {} : { model }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  };
}
