// One Run of an agent runner, as named steps: check the call, prepare the request, register it
// with the egress proxy, run its container under its guards, assemble the Outcome.
// Invariant: a Run ends in an Outcome, never a throw; a refusal before the runtime carries the
// caller's run id too (one Run, one id).

import type { Outcome } from "../plan/index.js";
import { isRunId, newRunId } from "../runtime/index.js";
import type { EgressGateway } from "../gateway/index.js";
import type { AgentRequestInput, AgentResult } from "../agents/index.js";
import type { RunnerContext } from "./context.js";
import { credentialMasked } from "./hand-over.js";
import { refused, withNetworkHint, withRuntimeHint, type AgentOutcome } from "./outcome.js";
import { prepare, type Prepared } from "./prepare.js";
import { runGuarded, type EnteredProxy, type Ran } from "./run-container.js";
import { checkRunCall, type AgentRunOptions } from "./runner-options.js";
import { proxiedRun, type ProxiedRun } from "./network-policy.js";
import type { RunnerSettings } from "./settings.js";
import { endAgentRunTrace, meterForOutcome, type RunTraceContext, startAgentRunTrace } from "./run-trace.js";
import type { RunMeter } from "../egress/index.js";
import type { RunTrace } from "../trace/index.js";

export async function runAgent(
  context: RunnerContext,
  input: AgentRequestInput,
  prompt: string,
  runOptions: AgentRunOptions,
  extra: readonly unknown[],
): Promise<AgentOutcome> {
  const given = runOptions as { runId?: unknown; traceContext?: RunTraceContext } | undefined;
  const trace = startAgentRunTrace(isRunId(given?.runId) ? given.runId : undefined, given?.traceContext);
  let meter: RunMeter | undefined;
  const outcome = await runTraced(context, input, prompt, runOptions, extra, trace, (read) => (meter = read));
  endAgentRunTrace(trace, outcome, meter);
  return outcome;
}

/** The Run under its span: the steps below, the proxy's last meter reading handed to `metered` for the span's model calls. */
async function runTraced(
  context: RunnerContext,
  input: AgentRequestInput,
  prompt: string,
  runOptions: AgentRunOptions,
  extra: readonly unknown[],
  trace: RunTrace,
  metered: (meter: RunMeter | undefined) => void,
): Promise<AgentOutcome> {
  // A refusal before the runtime carries the caller's id too, when that id itself is good: one Run, one id.
  const callerId = (runOptions as { runId?: unknown } | undefined)?.runId;
  const named = (outcome: AgentOutcome): AgentOutcome => (isRunId(callerId) ? { ...outcome, runId: callerId } : outcome);
  const misuse = checkRunCall(prompt, runOptions, extra);
  if (misuse !== undefined) return named(refused("invalid_request", misuse, "none"));
  const prepared = await prepare(context.settings, input);
  if ("runId" in prepared) return named(prepared);
  context.headStarts?.learn(prepared.request);
  const entered = await enterProxy(context, prepared, runOptions.runId);
  if ("refusal" in entered) return named(entered.refusal);
  trace.set({ cli: prepared.request.cli, networkPolicy: context.settings.options.networks === undefined ? context.settings.policy : "declared" });
  const ran = await runGuarded(context, prepared, entered, prompt, runOptions, trace);
  metered(ran.meter);
  return assembleOutcome(context.settings, prepared, ran);
}

/**
 * Under "model" and "allowlist": the Run registered with the egress proxy, once its breaches can be
 * heard; with head starts, registered later, at its claim (with its member's token); over several
 * engines, registered once it is placed, with the proxy of its engine. Else no proxied Run.
 */
async function enterProxy(
  context: RunnerContext,
  { request, credential }: Prepared,
  runId: string | undefined,
): Promise<EnteredProxy | { readonly refusal: AgentOutcome }> {
  const { gateway, proxies, policy, options } = context.settings;
  if (gateway === undefined && proxies === undefined) return { proxied: undefined };
  if (credential.kind === "login") {
    return {
      refusal: refused(
        "unavailable",
        `a codex ChatGPT login cannot be kept out of the agent's container by the egress proxy (network policy ${JSON.stringify(policy)}); give codex an API key ($OPENAI_API_KEY), or use the "open" policy for a login`,
        credential.kind,
        request.cli,
      ),
    };
  }
  const proxiedOn = (one: EgressGateway, id?: string): ProxiedRun =>
    proxiedRun(one, request, credential, policy as "model" | "allowlist", options.allowlist ?? [], id);
  if (proxies !== undefined) {
    const id = runId ?? newRunId();
    const on = async (engine: string, recheck = false): Promise<ProxiedRun> => {
      const one = await (recheck ? proxies.recheck(engine) : proxies.forEngine(engine));
      await context.breaches.hear(one);
      return proxiedOn(one, id);
    };
    return { proxied: undefined, unplaced: { runId: id, on } };
  }
  if (gateway === undefined) return { proxied: undefined };
  try {
    await context.breaches.hear(gateway);
    const proxied = proxiedOn(gateway, runId);
    if (context.headStarts === undefined) await proxied.register();
    return { proxied };
  } catch (error) {
    return {
      refusal: refused(
        "unavailable",
        `the egress proxy did not take the Run: ${error instanceof Error ? error.message : String(error)}`,
        credential.kind,
        request.cli,
      ),
    };
  }
}

/** The runtime's Outcome with the guards' last word (budget, a stopped Run's answer so far), the network's, and the hint a failure gets. */
function assembleOutcome(settings: RunnerSettings, { request, credential }: Prepared, { ran, guard, meter, onEventError }: Ran): AgentOutcome {
  const { policy, options } = settings;
  const guarded = guard.finish(ran.reason, ran.result);
  const last = guard.lastEvent();
  const outcome: Outcome<AgentResult> = {
    ...ran,
    reason: guarded.reason,
    ...(guarded.result === undefined ? {} : { result: guarded.result }),
    ...(ran.reason === "stalled" && last !== undefined ? { error: `${ran.error ?? "the agent stalled"}; the last event it printed: ${last}` } : {}),
  };
  return {
    ...hinted(settings, outcome),
    ...(guarded.budget === undefined ? {} : { budget: guarded.budget }),
    network: { policy: options.networks === undefined ? policy : "declared", ...(meter === undefined ? {} : { meter: meterForOutcome(meter) }) },
    credential: credential.kind,
    cli: request.cli,
    ...(options.standIn === true ? { standIn: true as const } : {}),
    // Masked like everything else the Run hands back: the callback may have quoted an event.
    ...(onEventError === undefined ? {} : { onEventError: credentialMasked(onEventError, credential) }),
  };
}

/** A failed Run that could not reach its model, with why when the Operator's declaration explains it. */
function hinted({ policy, options }: RunnerSettings, outcome: Outcome<AgentResult>): Outcome<AgentResult> {
  if (policy === "none" && options.networks === undefined) return withNetworkHint(outcome);
  if (policy !== "none" && options.containerRuntime !== undefined) return withRuntimeHint(outcome, options.containerRuntime, policy);
  return outcome;
}
