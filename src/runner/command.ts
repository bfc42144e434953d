// The `docker run` words, or the Kubernetes Pod and NetworkPolicy, for a request, starting nothing: the
// Agent Container and Run Plan a Run would get, the credential only by name (its value from whoever runs them).
// Invariant: a call or request that cannot mean anything throws here; there is no Outcome to carry it.

import type { ComposedCommand } from "../container/index.js";
import type { PodManifest } from "../kube/index.js";
import type { ManifestOptions } from "../runtime/index.js";
import { AgentRequestError, CREDENTIAL_VARIABLES, type AgentRequestInput } from "../agents/index.js";
import type { RunnerContext } from "./context.js";
import { agentVariable, handOver } from "./hand-over.js";
import { prepareAny } from "./prepare.js";
import type { PlannedRequest } from "./run-plan.js";
import { AgentRunnerError, checkRunCall } from "./runner-options.js";

export async function commandForRequest(context: RunnerContext, input: AgentRequestInput, prompt: string, extra: readonly unknown[]): Promise<ComposedCommand> {
  const misuse = checkRunCall(prompt, undefined, extra);
  if (misuse !== undefined) throw new AgentRunnerError(misuse.replace(/^run takes \(request, prompt, options\)/, "commandFor takes (request, prompt)"));
  const { prompt: planned, handed } = await plannedRequest(context, input, prompt);
  return context.runtime.commandFor(planned, handed);
}

/** The Pod and NetworkPolicy for a request, starting nothing; the credential only as a key of the Run's Secret. */
export async function manifestForRequest(context: RunnerContext, input: AgentRequestInput, prompt: string, pod: ManifestOptions): Promise<PodManifest> {
  const misuse = checkRunCall(prompt, undefined, []);
  if (misuse !== undefined) throw new AgentRunnerError(misuse.replace(/^run takes \(request, prompt, options\)/, "manifestFor takes (request, prompt, pod)"));
  const { prompt: planned, handed } = await plannedRequest(context, input, prompt);
  return context.runtime.manifestFor(planned, pod, handed);
}

async function plannedRequest(context: RunnerContext, input: AgentRequestInput, prompt: string) {
  const prepared = await prepareAny(context.settings, input, true);
  if ("runId" in prepared) throw new AgentRequestError(prepared.error ?? prepared.reason);
  const { request, credential } = prepared;
  const endpoint = context.settings.endpoints[request.cli];
  // No credential here is no reason to refuse a plan: it names the variable a Run would read.
  const handed =
    credential === undefined
      ? { env: { [agentVariable(request.cli, CREDENTIAL_VARIABLES[request.cli][0]?.[0] ?? "", endpoint)]: "" } }
      : handOver(request.cli, credential, endpoint);
  return { prompt: { text: prompt, request: { request, watch: () => [] } satisfies PlannedRequest }, handed };
}
