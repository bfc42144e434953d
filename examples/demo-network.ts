// Which network each demo Run gets, decided from the environment alone (pure, so a test can ask it).
// With no key for the CLI: the stand-in model's own namespace. With one: the `model` policy, where
// the egress proxy holds the key and the agent reaches nothing else. A policy or network that
// reaches out (`open`, `bridge`) only when named, and then with a warning that says what it reaches.

import { reachWarning, type AgentCli, type NetworkPolicy } from "../src/index.js";

/** The variables each CLI's key may be in; any one set and non-empty means a real key. */
export const DEMO_KEYS: Record<AgentCli, readonly string[]> = {
  claude: ["CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
};

/** Names a policy instead of `model` (the names `agentcage serve` reads too). */
export const POLICY_VARIABLE = "AGENTCAGE_NETWORK_POLICY";
/** Names networks the agent joins by hand, comma-separated (`bridge`), instead of a policy. */
export const NETWORK_VARIABLE = "AGENTCAGE_AGENT_NETWORK";
/** The policies the demo takes: allowlist needs its hosts, which `agentcage run --allow` takes. */
const DEMO_POLICIES = ["model", "open", "none"] as const satisfies readonly NetworkPolicy[];
type DemoPolicy = (typeof DEMO_POLICIES)[number];

export type DemoNetwork =
  /** No key: the stand-in model, in a container with no network, whose namespace the agent joins. */
  | { readonly kind: "stand-in" }
  /** A network policy: `model` (the egress proxy, which holds the key) unless another is named. */
  | { readonly kind: "policy"; readonly policy: DemoPolicy }
  /** Networks the agent joins, named by hand. */
  | { readonly kind: "networks"; readonly networks: readonly string[] };

export type DemoNetworkChoice = {
  readonly network: DemoNetwork;
  /** Said before the Run: what a named policy or network lets the agent reach, or that it is not used. */
  readonly warning?: string;
};

/** Throws an Error naming the variable, quoting its value and saying what to write. */
export function chooseDemoNetwork(cli: AgentCli, env: Readonly<Record<string, string | undefined>>): DemoNetworkChoice {
  const policy = env[POLICY_VARIABLE] ?? "";
  const networks = (env[NETWORK_VARIABLE] ?? "").split(/[\s,]+/).filter((name) => name !== "");
  if (policy !== "" && !(DEMO_POLICIES as readonly string[]).includes(policy)) {
    throw new Error(
      `${POLICY_VARIABLE} ${JSON.stringify(policy)} is not a policy the demo takes; write ${DEMO_POLICIES.join(", ")}, or leave it out for model (a network such as bridge goes in ${NETWORK_VARIABLE})`,
    );
  }
  if (policy !== "" && networks.length > 0) {
    throw new Error(
      `${POLICY_VARIABLE} ${JSON.stringify(policy)} and ${NETWORK_VARIABLE} ${JSON.stringify(env[NETWORK_VARIABLE])} were both given; name a policy or networks, not both`,
    );
  }
  const real = DEMO_KEYS[cli].some((name) => (env[name] ?? "") !== "");
  if (!real) {
    const named = policy !== "" ? `${POLICY_VARIABLE}=${policy}` : networks.length > 0 ? `${NETWORK_VARIABLE}=${networks.join(",")}` : undefined;
    return {
      network: { kind: "stand-in" },
      ...(named === undefined
        ? {}
        : {
            warning: `${named} is not used for ${cli}: with no key set (${DEMO_KEYS[cli].join(" or ")}), it runs against the stand-in model, which needs no network`,
          }),
    };
  }
  if (networks.length > 0) {
    return {
      network: { kind: "networks", networks },
      warning: `${NETWORK_VARIABLE}: ${reachWarning({ networks }) ?? `${cli}'s agent joins ${networks.join(", ")}`}`,
    };
  }
  const chosen: DemoPolicy = policy === "" ? "model" : (policy as DemoPolicy);
  if (chosen === "none") {
    return {
      network: { kind: "policy", policy: "none" },
      warning: `${POLICY_VARIABLE}=none gives the agent no network at all: a real CLI cannot reach its model, and the Run fails saying so`,
    };
  }
  const warning = reachWarning({ policy: chosen });
  return { network: { kind: "policy", policy: chosen }, ...(warning === undefined ? {} : { warning: `${POLICY_VARIABLE}=${chosen}: ${warning}` }) };
}
