// The runner's network options checked together, at construction: a policy, the proxy it needs,
// and the settings it replaces. Each refusal names the option, quotes the value and says what to write.

import { connectTarget } from "../egress/index.js";
import type { BackendAsk } from "../runtime/index.js";
import type { BackendChoice } from "./backend-choice.js";
import { AgentRunnerError, type AgentRunnerOptions } from "./runner-options.js";
import { NETWORK_POLICIES, type NetworkPolicy } from "./network-policy.js";

/** The one refusal of a policy and hand-declared networks together, in the caller's own words for the two. */
export function bothPolicyAndNetworks(policy: string, networks: string): string {
  return `${policy} and ${networks} were both given; choose a policy, or declare networks by hand, not both`;
}

/** The policy in effect; throws AgentRunnerError for options that cannot go together. */
export function checkNetworkPolicy(options: AgentRunnerOptions, { backend, egress }: BackendChoice): NetworkPolicy {
  const policy = options.networkPolicy ?? "none";
  if (!(NETWORK_POLICIES as readonly unknown[]).includes(policy)) {
    throw new AgentRunnerError(
      `networkPolicy ${JSON.stringify(policy)} is not a policy; write one of ${NETWORK_POLICIES.map((p) => JSON.stringify(p)).join(", ")}`,
    );
  }
  if (options.networkPolicy !== undefined && options.networks !== undefined) {
    throw new AgentRunnerError(bothPolicyAndNetworks(`networkPolicy ${JSON.stringify(policy)}`, `networks ${JSON.stringify(options.networks)}`));
  }
  const proxied = policy === "model" || policy === "allowlist";
  if (proxied) {
    // The proxy given must be one these Runs reach: the backend's placement says which.
    egress.check(options.egress, policy);
    for (const replaced of ["anthropicBaseUrl", "codexProvider", "codexLoginDirectory"] as const) {
      if (options[replaced] !== undefined) {
        throw new AgentRunnerError(
          `${replaced} ${JSON.stringify(options[replaced])} cannot go with networkPolicy ${JSON.stringify(policy)}: behind the egress proxy the CLI speaks only to the proxy, and where the proxy sends it is the proxy's own setting (upstreams); leave ${replaced} out`,
        );
      }
    }
  } else if (options.egress !== undefined) {
    throw new AgentRunnerError(
      `egress is given but networkPolicy is ${JSON.stringify(policy)}; set networkPolicy "model" (or "allowlist") to use the proxy, or leave egress out`,
    );
  }
  if (options.allowlist !== undefined) {
    if (policy !== "allowlist") {
      throw new AgentRunnerError(
        `allowlist ${JSON.stringify(options.allowlist)} is given but networkPolicy is ${JSON.stringify(policy)}; set networkPolicy "allowlist", or leave allowlist out`,
      );
    }
    if (!Array.isArray(options.allowlist))
      throw new AgentRunnerError(`allowlist ${JSON.stringify(options.allowlist)} is not a list; write host:port pairs, like ["api.example.com:443"]`);
    options.allowlist.forEach((entry: unknown, i) => {
      if (typeof entry !== "string" || connectTarget(entry) === undefined) {
        throw new AgentRunnerError(`allowlist[${i}] ${JSON.stringify(entry)} is not host:port; write a host name and its port, like "api.example.com:443"`);
      }
    });
  } else if (policy === "allowlist") {
    throw new AgentRunnerError(
      'networkPolicy "allowlist" needs allowlist: the host:port pairs an agent may reach, like ["api.example.com:443"]; with none, use "model"',
    );
  }
  // What the backend cannot give the agent's reach, in its words: hand-declared networks first, then the policy.
  const asks: BackendAsk[] = [
    ...(options.networks === undefined
      ? []
      : [{ needs: "network" as const, asked: `networks ${JSON.stringify(options.networks)}`, audience: "library" as const }]),
    { needs: "networkPolicy", asked: `networkPolicy ${JSON.stringify(policy)}`, policy, audience: "library" as const },
  ];
  const refused = asks.map(backend.refusal).find((refusal) => refusal !== undefined);
  if (refused !== undefined) throw new AgentRunnerError(refused);
  return policy;
}
