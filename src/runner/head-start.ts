// The agent a runner's pool members start ahead (their head start): claude under the `model` policy,
// with the argv claudeArgs gives (the runner's default request, or the last claude Run's when it
// carried no caller's text) and a per-Run token made for that member alone, worth nothing until the
// Run that claims the member registers it with the egress proxy. Invariant: a head start holds no
// caller's data: no prompt (it comes on stdin at the claim), no system prompt, no session, no model
// id outside the price table; and never the real credential (`none` and `open` have no head start).

import { claudeArgs, parseAgentRequest, type AgentRequest } from "../agents/index.js";
import { newRunToken } from "../egress/index.js";
import { priceOf } from "../plan/index.js";
import type { HeadStartPlan } from "../runtime/index.js";
import { proxiedEnvironment } from "./network-policy.js";
import type { RunnerSettings } from "./settings.js";

/** The variable claude reads its key from: under `model`, the Run's token (proxiedEnvironment). */
const TOKEN_VARIABLE = "ANTHROPIC_API_KEY";

export type HeadStarts = {
  /** The next member's head start: the argv of now, a token of its own. */
  readonly plan: () => HeadStartPlan;
  /** Takes a Run's argv for the members made from now on, when nothing in it is a caller's text. */
  readonly learn: (request: AgentRequest) => void;
  /** The token a Run takes from its member's head start (offered by the runtime at the claim), when the Run is claude's. */
  readonly offeredToken: (request: AgentRequest, offered: Readonly<Record<string, string>> | undefined) => string | undefined;
};

/** The runner's head starts: only with a pool, under `model` (the credential stays in the proxy); else undefined. */
export function headStartsOf(settings: RunnerSettings): HeadStarts | undefined {
  const { gateway, policy, options } = settings;
  if (options.pool === undefined || options.pool.headStart === false) return undefined;
  if (gateway === undefined || policy !== "model" || options.networks !== undefined) return undefined;
  // Its prompt comes as a stream-json message (planRun's streamInput): claude waits for it as long as the claim takes.
  let words = claudeArgs(parseAgentRequest({ cli: "claude" }), { streamInput: true });
  return {
    plan: () => ({ words, env: proxiedEnvironment("claude", newRunToken(), gateway, "model") }),
    learn: (request) => {
      if (learnable(request)) words = claudeArgs(request, { streamInput: true });
    },
    offeredToken: (request, offered) => (request.cli === "claude" ? offered?.[TOKEN_VARIABLE] : undefined),
  };
}

/** Whether a request's argv holds only the runner's own choices and the caller's numbers, flags and known model ids. */
function learnable(request: AgentRequest): boolean {
  if (request.cli !== "claude" || request.systemPrompt !== undefined || request.resumeSession !== undefined) return false;
  return request.model === undefined || priceOf("claude", request.model).known;
}
