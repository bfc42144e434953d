/**
 * The agent runner: one Agent Container for the agent image and, per Run, a typed request turned
 * into a Run Plan for its CLI, with the allow-listed environment, exactly one credential, the
 * Run's network policy and its live guards (budget, wall clock, the egress proxy's meter).
 *
 * ```ts
 * const agents = createAgentRunner({ image: AGENT_IMAGE, staging: { runtimeDir: "/srv/agentcage" } });
 * const outcome = await agents.run({ cli: "claude", model: "sonnet", maxTurns: 20 }, "Review the diff in /work.", {
 *   inputs: { directory: "/srv/checkouts/pr-42" },
 *   harvestTo: "/srv/reviews/pr-42",
 *   onEvent: (event) => console.log(event.type),
 * });
 * ```
 */
export type { AgentOutcome, AgentRunner } from "./runner.js";
export type { AgentRunnerOptions, AgentRunOptions } from "./runner-options.js";
export type { BudgetReport } from "./guard.js";
export type { NetworkPolicy, NetworkReport } from "./network-policy.js";
export type { RunTraceContext } from "./run-trace.js";
export { AGENT_IMAGE } from "./agent-image.js";
export { createAgentRunner } from "./runner.js";
export { AgentRunnerError } from "./runner-options.js";
export { NETWORK_POLICIES, reachWarning } from "./network-policy.js";
export type { CliVersion, CliVersionOptions } from "./cli-versions.js";
export { agentCliVersions } from "./cli-versions.js";
export type { AssemblyStep, AssemblyWaiting, RunnerAssembly } from "./assembly.js";
export { assembleRunners, assemblyRefusal } from "./assembly.js";
export { bothPolicyAndNetworks } from "./network-options.js";
export { ownForBackend } from "./backend-choice.js";
export { agentcageVersion } from "./package-version.js";
