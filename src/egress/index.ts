/**
 * The egress proxy: the one door from an agent's network to its model. The agent holds a per-Run
 * token; the proxy holds the real credential, forwards only its model provider's API paths to it
 * (one file per provider in providers/), meters every answer as it streams through, refuses model calls past the Run's budget,
 * and (allowlist mode) tunnels CONNECT to the host:port pairs the Operator lists. The runtime
 * talks to it in process, or over the control endpoint when it runs in a container of its own.
 *
 * ```ts
 * const proxy = await createEgressProxy({ upstreams: { anthropic: "http://127.0.0.1:8080" } });
 * const { token } = await proxy.register({ runId, provider: "anthropic", credential: { kind: "api_key", value: key }, budget: { maxTurns: 20 } });
 * // the agent: ANTHROPIC_BASE_URL=proxy.url, ANTHROPIC_API_KEY=token
 * proxy.onBreach((breach) => stopRun(breach.runId, breach.message));
 * const spent = await proxy.revoke(runId); // the moment the Run ends
 * await proxy.close();
 * ```
 *
 * In its own container the proxy also serves `startEgressControlEndpoint(proxy, { socketPath,
 * secret })`, and the orchestrator holds `createEgressControlClient({ socketPath, secret })`: the
 * same EgressControl (register, revoke, meter, onBreach) over a unix socket with a bearer secret.
 */
export type { EgressControl, EgressProxy } from "./proxy.js";
export type { EgressControlClient } from "./control-client.js";
export type { EgressProxyOptions } from "./options.js";
export type { EgressBreach, EgressBudget, EgressCap, EgressCredential, EgressUsage, MeteredCall, RunMeter, RunRegistration } from "./run.js";
export { createEgressProxy } from "./proxy.js";
export { startEgressControlEndpoint } from "./control.js";
export { BRIDGE_CONNECTED, BRIDGE_SCRIPT, bridgeCommand } from "./bridge-command.js";
export { createEgressControlClient } from "./control-client.js";
export { EgressArgumentError } from "./run.js";
export { newRunToken } from "./token.js";
export * from "./limits.js";
export { DEFAULT_EGRESS_PORT, EGRESS_VARIABLES } from "./environment.js";
export { EGRESS_PROVIDERS, EGRESS_PROVIDER_NAMES } from "./providers/index.js";
export { connectTarget } from "./connect-target.js";
