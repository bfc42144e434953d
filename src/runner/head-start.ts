// The agent a runner's pool members start ahead (their head start): the first CLI whose adapter
// waitsForPrompt (claude), with the argv its adapter gives (the runner's default request, or the last
// Run's of that CLI when it carried no caller's text).
// Under `model` it holds a per-Run token made for that member alone, worth nothing until the Run
// that claims the member registers it with the egress proxy; under `none` it holds no key at all:
// its key helper waits for the key the claim writes to the member's tmpfs (hand-over.ts).
// Invariant: a head start holds no caller's data: no prompt (it comes on stdin at the claim), no
// system prompt, no session, no model id outside the price table; and never the real credential
// (`open` and `allowlist` have no head start).

import { AGENT_CLIS, adapterFor, parseAgentRequest, type AgentRequest } from "../agents/index.js";
import { newRunToken } from "../egress/index.js";
import { priceOf } from "../plan/index.js";
import { DEFAULT_POOL_IDLE_SECONDS, type HeadStartPlan } from "../runtime/index.js";
import { keyHelperCommand } from "./hand-over.js";
import { proxiedEnvironment } from "./network-policy.js";
import type { RunnerSettings } from "./settings.js";

/**
 * claude gives up on a key helper after 10 minutes (checked in claude 2.1.332: it then sends no
 * key). A member's helper waits from its start to its claim, at most the pool's idle time and the
 * launcher's margin: under `none`, a pool idle this long or longer gets no head start.
 */
const KEY_HELPER_WAIT_LIMIT_SECONDS = 600 - 60;

export type HeadStarts = {
  /** The next member's head start: the argv of now, a token of its own (under `model`). */
  readonly plan: () => HeadStartPlan;
  /** Takes a Run's argv for the members made from now on, when nothing in it is a caller's text. */
  readonly learn: (request: AgentRequest) => void;
  /** The token a Run takes from its member's head start (offered by the runtime at the claim), when the Run is of the CLI started ahead. */
  readonly offeredToken: (request: AgentRequest, offered: Readonly<Record<string, string>> | undefined) => string | undefined;
};

/** The runner's head starts: only with a pool, under `model` (the credential stays in the proxy) or `none` (it comes at the claim); else undefined. */
export function headStartsOf(settings: RunnerSettings): HeadStarts | undefined {
  const { gateway, policy, options } = settings;
  if (options.pool === undefined || options.pool.headStart === false) return undefined;
  const proxied = gateway !== undefined && policy === "model" && options.networks === undefined;
  const keyAtClaim = policy === "none" && (options.pool.maxIdleSeconds ?? DEFAULT_POOL_IDLE_SECONDS) < KEY_HELPER_WAIT_LIMIT_SECONDS;
  const cli = AGENT_CLIS.find((name) => adapterFor(name).waitsForPrompt);
  if ((!proxied && !keyAtClaim) || cli === undefined) return undefined;
  const adapter = adapterFor(cli);
  // Under `none` the Run's CLI reads its key with the helper (keyHelperFor): so does the head start.
  const keyHelper = keyAtClaim ? adapter.keyHelperVariable : undefined;
  if (keyAtClaim && keyHelper === undefined) return undefined;
  // Its prompt comes as a message (planRun's streamInput): the CLI waits for it as long as the claim takes.
  const argsOf = (request: AgentRequest) =>
    adapter.plan(request, "", {
      workdir: settings.workdir,
      keepSession: settings.keepSessions,
      endpoint: settings.endpoints[cli],
      streamInput: true,
      ...(keyHelper === undefined ? {} : { keyHelper: keyHelperCommand(keyHelper) }),
    }).args;
  let words = argsOf(parseAgentRequest({ cli }));
  return {
    plan: () => ({ words, env: gateway === undefined || !proxied ? {} : proxiedEnvironment(cli, newRunToken(), gateway, "model") }),
    learn: (request) => {
      if (learnable(request)) words = argsOf(request);
    },
    offeredToken: (request, offered) => (proxied && request.cli === cli ? offered?.[adapter.proxyTokenVariable] : undefined),
  };

  /** Whether a request's argv holds only the runner's own choices and the caller's numbers, flags and known model ids. */
  function learnable(request: AgentRequest): boolean {
    if (request.cli !== cli || request.systemPrompt !== undefined || request.resumeSession !== undefined) return false;
    return request.model === undefined || priceOf(adapter.modelProvider, request.model).known;
  }
}
