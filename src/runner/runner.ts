// An agent runner: one Agent Container for the agent image, and per Run a typed request turned
// into a Run Plan for its CLI, with the allow-listed environment and exactly one credential.
// Everything that can go wrong before a container is an Outcome too; the credential is never shown.
// This file only wires the steps: settings (settings.ts), the runtime (agent-container.ts), one Run (run.ts).

import type { ComposedCommand } from "../container/index.js";
import type { PodManifest } from "../kube/index.js";
import { pino } from "pino";
import {
  createDegradations,
  runNetworkRangeClash,
  type DegradationView,
  type ManifestOptions,
  type PoolStats,
  type RuntimeCheck,
  type SweepResult,
  type BackendRefusals,
} from "../runtime/index.js";
import { AGENT_CLIS, type AgentCli, type AgentRequestInput, type CredentialKind } from "../agents/index.js";
import { createRunnerRuntime } from "./agent-container.js";
import { createBreachListener } from "./breaches.js";
import { commandForRequest, manifestForRequest } from "./command.js";
import type { RunnerContext } from "./context.js";
import type { AgentOutcome } from "./outcome.js";
import { checkProxy } from "./proxy-degradation.js";
import { prepare } from "./prepare.js";
import { runAgent } from "./run.js";
import { headStartsOf } from "./head-start.js";
import { checkRunnerOptions, type AgentRunOptions, type AgentRunnerOptions } from "./runner-options.js";
import { resolveRunnerSettings, type RunnerSettings } from "./settings.js";

export type { AgentOutcome } from "./outcome.js";

/** Runs an agent CLI (AGENT_CLIS), one fresh locked-down container per Run, from a typed request; made by createAgentRunner. */
export type AgentRunner = {
  /** Never rejects: a malformed call, a missing credential, anything that happens to the Run is the Outcome. */
  readonly run: (request: AgentRequestInput, prompt: string, options?: AgentRunOptions) => Promise<AgentOutcome>;
  /** The `docker run` words for a request, starting nothing; the credential only by name. */
  readonly commandFor: (request: AgentRequestInput, prompt: string) => Promise<ComposedCommand>;
  /** The Kubernetes Pod and NetworkPolicy for a request, starting nothing; throws KubernetesError for what a Pod cannot honour. */
  readonly manifestFor: (request: AgentRequestInput, prompt: string, pod: ManifestOptions) => Promise<PodManifest>;
  readonly sweep: () => Promise<SweepResult>;
  /**
   * Keeps the session a request resumes from this process's sweeps until the returned release is
   * called: for a Run that waits in a caller's own queue before `run`. A request that resumes
   * nothing, or a runner that keeps no sessions, holds nothing.
   */
  readonly holdSession: (request: Pick<AgentRequestInput, "cli" | "resumeSession">) => () => void;
  /** Whether a Run could start now, and which kind of credential each CLI would get (never a value). */
  readonly check: () => Promise<RuntimeCheck & { readonly credentials: Readonly<Record<AgentCli, CredentialKind>> }>;
  /** The warm pool's figures (pool option); undefined without one. */
  readonly pool: () => PoolStats | undefined;
  /** What makes it less than it says now, oldest first, and how often each kind began (the `degradations` board, shared with whoever gave it). */
  readonly degradations: DegradationView;
  /** Removes the warm pool's unclaimed members and waits for what warm Runs left to the background; without a pool, nothing to do. */
  readonly close: () => Promise<void>;
  /**
   * Where its Runs' containers live (chosen once from its options): what it refuses, in its own
   * words, and what it is, for a log. For the service and the command; left out of the package's types.
   * @internal
   */
  readonly backend: BackendRefusals & { readonly description: string };
};

/**
 * Makes an AgentRunner: the agent image, staging, credentials and network policy, given once. Options
 * that cannot mean anything throw here; everything after that is an Outcome.
 */
export function createAgentRunner(options: AgentRunnerOptions, ...extra: never[]): AgentRunner {
  checkRunnerOptions(options, extra);
  // The runner's board is its runtime's: what either meets is said once, on the caller's board when it gives one.
  const degradations = options.degradations ?? createDegradations(options.logger ?? pino({ level: "silent" }));
  const settings = resolveRunnerSettings({ ...options, degradations });
  const headStarts = headStartsOf(settings);
  const context: RunnerContext = { settings, runtime: createRunnerRuntime(settings, headStarts), breaches: createBreachListener(), headStarts };
  // Every Run of the policy needs a network of its own: a range no network can be made in is said now, not at the first Run.
  const clash = networkPerRun(settings) ? runNetworkRangeClash(options.runNetworkRange) : undefined;
  if (clash !== undefined) degradations.raise(clash);
  return {
    run: (input, prompt, runOptions = {}, ...more: never[]) => runAgent(context, input, prompt, runOptions, more),
    commandFor: (input, prompt, ...more: never[]) => commandForRequest(context, input, prompt, more),
    manifestFor: (input, prompt, pod) => manifestForRequest(context, input, prompt, pod),
    sweep: context.runtime.sweep,
    holdSession: (request) => holdSession(context, request),
    check: () => checkRunner(context),
    pool: context.runtime.pool,
    degradations: context.runtime.degradations,
    close: context.runtime.close,
    backend: { refusal: settings.backend.refusal, description: settings.backend.description },
  };
}

/** Whether each Run gets a network of its own on an engine (model, allowlist, open), not a Pod's or none. */
function networkPerRun({ policy, backend }: RunnerSettings): boolean {
  return (
    (policy === "model" || policy === "allowlist" || policy === "open") &&
    backend.refusal({ needs: "runNetwork", asked: `networkPolicy ${policy}` }) === undefined
  );
}

function holdSession({ settings, runtime }: RunnerContext, request: Pick<AgentRequestInput, "cli" | "resumeSession">): () => void {
  return settings.keepSessions && typeof request.resumeSession === "string" && typeof request.cli === "string"
    ? runtime.holdSessionStore(request.cli, request.resumeSession)
    : () => undefined;
}

async function checkRunner({ settings, runtime }: RunnerContext): ReturnType<AgentRunner["check"]> {
  // Its one proxy shown gone stops every Run under the policy: on the board until it runs again.
  if (settings.gateway !== undefined && settings.options.degradations !== undefined) await checkProxy(settings.gateway, settings.options.degradations);
  const kinds = {} as Record<AgentCli, CredentialKind>;
  for (const cli of AGENT_CLIS) {
    const found = await prepare(settings, { cli });
    kinds[cli] = "runId" in found ? "none" : found.credential.kind;
  }
  return { ...(await runtime.check()), credentials: kinds };
}
