// The runner's Outcome: the runtime's, plus which credential kind the Run got, its CLI, budget and
// network; a refusal before any container; and the hint a failed Run gets when it could not reach
// its model for a reason the Operator declared (no network, a runtime without one).
// Invariant: no secret value is in anything made here; only kinds, request fields and paths.

import { refusedOutcome } from "../runtime/index.js";
import type { Outcome } from "../plan/index.js";
import type { AgentCli, AgentResult, CredentialKind } from "../agents/index.js";
import type { BudgetReport } from "./guard.js";
import type { NetworkPolicy, NetworkReport } from "./network-policy.js";

/** An agent Run's Outcome: the runtime's, plus which kind of credential it got (never the value), its CLI, budget and network. */
export type AgentOutcome = Outcome<AgentResult> & {
  /** Which kind of credential the Run got; never its value. */
  readonly credential: CredentialKind;
  readonly cli?: AgentCli;
  /** The first error the caller's onEvent threw (masked); the Run went on without delivering to it. */
  readonly onEventError?: string;
  /** With a budget: its caps, what the Run spent, and the cap it passed when it ended budget_exceeded. */
  readonly budget?: BudgetReport;
  /** The Run's network policy, and under the egress proxy what it metered (the provider's own counts). */
  readonly network?: NetworkReport;
  /** The stand-in model answered (the runner's standIn): the usage, and any cost priced from it, are made up, billed by no one. */
  readonly standIn?: true;
};

export function refused(reason: "invalid_request" | "unavailable", error: string, credential: CredentialKind, cli?: AgentCli): AgentOutcome {
  // No secret can be in these messages (a request's fields, a secrets file's path).
  return { ...refusedOutcome<AgentResult>(reason, error), credential, ...(cli === undefined ? {} : { cli }) };
}

/** A Run under another container runtime that could not reach its model: that runtime may have no network on this engine. */
export function withRuntimeHint(outcome: Outcome<AgentResult>, runtime: string, policy: NetworkPolicy): Outcome<AgentResult> {
  if (outcome.ok || !unreachedModel(outcome)) return outcome;
  const hint =
    `the container runtime ${JSON.stringify(runtime)} may give the agent no network on this engine (gVisor registered with --network=none does), ` +
    `so network policy ${JSON.stringify(policy)} cannot reach the model under it; use the "none" policy with it, or the engine's default runtime (see docs/network.md on runtimes and policies)`;
  return { ...outcome, error: outcome.error === undefined ? hint : `${outcome.error}; ${hint}` };
}

/** A failed Run whose container could reach nothing says so, and what to declare. */
export function withNetworkHint(outcome: Outcome<AgentResult>): Outcome<AgentResult> {
  if (outcome.ok || !unreachedModel(outcome)) return outcome;
  const hint =
    'the agent container has no network (network policy "none"), so the CLI could not reach its model; ' +
    'choose networkPolicy "model" with the egress proxy, or "open" (see docs/network.md)';
  return { ...outcome, error: outcome.error === undefined ? hint : `${outcome.error}; ${hint}` };
}

function unreachedModel(outcome: Outcome<AgentResult>): boolean {
  return (
    outcome.reason === "timeout" || outcome.result?.reason === "api_error" || outcome.result?.reason === "no_result" || outcome.result?.reason === "overloaded"
  );
}
