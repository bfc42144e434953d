// The runner's answers to misuse and to the obvious mistakes, against the real engine and the real
// CLIs: an agent with no network says why it could not reach its model and which policies would.
// The two CLIs' Runs go at once: each waits 15 s or more on a model it cannot reach, and
// neither's outcome depends on the other.

import { describe, it } from "vitest";
import { createAgentRunner } from "../index.js";
import { capturingLogger } from "../../test/support/engine.js";
import { AGENT_IMAGE } from "../../test/support/stand-in-container.js";

describe.concurrent("an agent Run under the none network policy", () => {
  for (const cli of ["claude", "codex"] as const) {
    it(`ends with ${cli} saying it could not reach its model and naming the policies that would`, async ({ expect }) => {
      const runner = createAgentRunner({
        image: AGENT_IMAGE,
        environment: { ANTHROPIC_API_KEY: "sk-no-network-test-key", OPENAI_API_KEY: "sk-no-network-test-key" },
        apiRetries: 0,
        logger: capturingLogger().logger,
      });
      const outcome = await runner.run({ cli, timeoutSeconds: cli === "claude" ? 15 : 120 }, "hello");
      expect(outcome.ok).toBe(false);
      expect(outcome.error).toContain('the agent container has no network (network policy "none")');
      expect(outcome.error).toContain('choose networkPolicy "model" with the egress proxy, or "open"');
      expect(outcome.network).toEqual({ policy: "none" });
      if (cli === "codex") {
        // It would retry an endpoint it cannot resolve for its whole timeout: it ends at the first such retry, with the cause.
        expect(outcome.result).toMatchObject({ reason: "api_error" });
        expect(outcome.error).toContain("failed to lookup address information");
        expect(outcome.durationMs).toBeLessThan(40_000);
      }
    }, 90_000);
  }
});
