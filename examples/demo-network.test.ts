// The demo's choice of network, as pure logic: with a real key the agent runs under the `model`
// policy (the egress proxy holds the key) and never on a network that reaches out unless one is
// named, and then with a warning that says what it reaches.

import { describe, expect, it } from "vitest";
import type { AgentCli } from "../src/index.js";
import { chooseDemoNetwork, DEMO_KEYS } from "./demo-network.js";

const KEY = "sk-made-up-demo-key-0123456789";

describe("the demo's network", () => {
  it("is the stand-in model's namespace when the CLI has no key", () => {
    expect(chooseDemoNetwork("claude", {})).toEqual({ network: { kind: "stand-in" } });
    expect(chooseDemoNetwork("codex", { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: "" })).toEqual({ network: { kind: "stand-in" } });
  });

  it.each((Object.entries(DEMO_KEYS) as Array<[AgentCli, readonly string[]]>).flatMap(([cli, names]) => names.map((name) => [cli, name] as const)))(
    "is the model policy, behind the egress proxy, with %s's %s set",
    (cli, name) => {
      expect(chooseDemoNetwork(cli, { [name]: KEY })).toEqual({ network: { kind: "policy", policy: "model" } });
    },
  );

  it("is open only when named, with a warning that it reaches the internet, the LAN and the metadata address", () => {
    const choice = chooseDemoNetwork("claude", { ANTHROPIC_API_KEY: KEY, AGENTCAGE_NETWORK_POLICY: "open" });
    expect(choice.network).toEqual({ kind: "policy", policy: "open" });
    expect(choice.warning).toMatch(/internet.*LAN.*169\.254\.169\.254/);
    expect(choice.warning).toContain("holds its credential itself");
  });

  it("joins bridge only when named, with a warning that it reaches the host's services and the metadata address through NAT", () => {
    const choice = chooseDemoNetwork("codex", { OPENAI_API_KEY: KEY, AGENTCAGE_AGENT_NETWORK: "bridge" });
    expect(choice.network).toEqual({ kind: "networks", networks: ["bridge"] });
    expect(choice.warning).toMatch(/"bridge".*host's services.*169\.254\.169\.254.*NAT/);
  });

  it("says plainly that none leaves a real CLI unable to reach its model", () => {
    const choice = chooseDemoNetwork("claude", { ANTHROPIC_API_KEY: KEY, AGENTCAGE_NETWORK_POLICY: "none" });
    expect(choice.network).toEqual({ kind: "policy", policy: "none" });
    expect(choice.warning).toContain("cannot reach its model");
  });

  it("keeps the stand-in without a key, saying the named network is not used", () => {
    const choice = chooseDemoNetwork("claude", { AGENTCAGE_NETWORK_POLICY: "open" });
    expect(choice.network).toEqual({ kind: "stand-in" });
    expect(choice.warning).toContain("AGENTCAGE_NETWORK_POLICY");
  });

  it("refuses a policy it does not take, and a policy with networks, naming the variable and quoting the value", () => {
    expect(() => chooseDemoNetwork("claude", { ANTHROPIC_API_KEY: KEY, AGENTCAGE_NETWORK_POLICY: "bridge" })).toThrow(
      /^AGENTCAGE_NETWORK_POLICY "bridge" is not a policy the demo takes; .*AGENTCAGE_AGENT_NETWORK/,
    );
    expect(() => chooseDemoNetwork("claude", { ANTHROPIC_API_KEY: KEY, AGENTCAGE_NETWORK_POLICY: "open", AGENTCAGE_AGENT_NETWORK: "bridge" })).toThrow(
      /AGENTCAGE_NETWORK_POLICY "open" and AGENTCAGE_AGENT_NETWORK "bridge" were both given/,
    );
  });
});
