// The runner's network options checked together at construction: a policy, the proxy it needs,
// the settings it replaces. Each refusal names the option and says what to write; nothing starts.

import { describe, expect, it } from "vitest";
import { createFakeEngine } from "../../test/support/fake-engine.js";
import { AgentRunnerError, createAgentRunner, type AgentRunnerOptions, type EgressGateway } from "../index.js";

/** Enough of a gateway for construction: the runner calls nothing of it until a Run. */
const gateway = { container: "agentcage-egress-test", alias: "egress", port: 8751, register: async () => ({ token: "t" }) } as unknown as EgressGateway;
const base: AgentRunnerOptions = { image: "agentcage-agent:latest", engine: createFakeEngine() };

describe("a runner's network options", () => {
  it.each<[Partial<AgentRunnerOptions>, RegExp]>([
    [{ networkPolicy: "wide" as never }, /^networkPolicy "wide" is not a policy; write one of "none", "model", "allowlist", "open"/],
    [{ networkPolicy: "model" }, /^networkPolicy "model" needs egress: the egress proxy; pass egress: await startEgressGateway/],
    [{ networkPolicy: "open", egress: gateway }, /^egress is given but networkPolicy is "open"/],
    [{ networkPolicy: "model", egress: gateway, networks: ["bridge"] }, /^networkPolicy "model" and networks \["bridge"\] were both given/],
    [
      { networkPolicy: "model", egress: gateway, anthropicBaseUrl: "http://127.0.0.1:1" },
      /^anthropicBaseUrl "http:\/\/127\.0\.0\.1:1" cannot go with networkPolicy "model": behind the egress proxy/,
    ],
    [
      { networkPolicy: "model", egress: gateway, codexLoginDirectory: "/tmp/login" },
      /^codexLoginDirectory "\/tmp\/login" cannot go with networkPolicy "model"/,
    ],
    [{ networkPolicy: "model", egress: gateway, allowlist: ["example.com:443"] }, /^allowlist \["example\.com:443"\] is given but networkPolicy is "model"/],
    [{ networkPolicy: "allowlist", egress: gateway }, /^networkPolicy "allowlist" needs allowlist/],
    [{ networkPolicy: "allowlist", egress: gateway, allowlist: ["example.com"] }, /^allowlist\[0\] "example\.com" is not host:port/],
  ])("refuses %j", (options, message) => {
    expect(() => createAgentRunner({ ...base, ...options })).toThrow(AgentRunnerError);
    expect(() => createAgentRunner({ ...base, ...options })).toThrow(message);
  });

  it("takes each policy with what it needs", () => {
    expect(() => createAgentRunner({ ...base, networkPolicy: "none" })).not.toThrow();
    expect(() => createAgentRunner({ ...base, networkPolicy: "open" })).not.toThrow();
    expect(() => createAgentRunner({ ...base, networkPolicy: "model", egress: gateway })).not.toThrow();
    expect(() => createAgentRunner({ ...base, networkPolicy: "allowlist", egress: gateway, allowlist: ["api.example.com:443"] })).not.toThrow();
  });

  it("points the CLIs at the proxy by its alias, never at a real provider, in the words it would run", async () => {
    const runner = createAgentRunner({
      ...base,
      networkPolicy: "model",
      egress: gateway,
      environment: { ANTHROPIC_API_KEY: "sk-ant-api03-never-in-the-container-0123", OPENAI_API_KEY: "sk-never-in-the-container-0123456789" },
    });
    const claude = (await runner.commandFor({ cli: "claude" }, "hi")).redactedArgs.join(" ");
    expect(claude).toContain("ANTHROPIC_BASE_URL=http://egress:8751");
    const codex = (await runner.commandFor({ cli: "codex" }, "hi")).redactedArgs.join(" ");
    expect(codex).toContain('base_url = "http://egress:8751/v1"');
  });
});
