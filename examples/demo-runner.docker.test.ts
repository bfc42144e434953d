// With a key set (a made-up one), the demo's Run goes the way the demo sends it: under the `model`
// policy, its agent container on an internal network of the Run's own and never on bridge. The
// egress proxy here forwards to the stand-in model inside its own container, so nothing leaves
// this machine; the agent's side is exactly the demo's.

import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { createAgentRunner } from "../src/index.js";
import { AGENT_IMAGE } from "../src/testing/index.js";
import { docker } from "../test/support/engine.js";
import { chooseDemoNetwork } from "./demo-network.js";
import { openDemoRunner } from "./demo-runner.js";

const KEY = "sk-ant-made-up-demo-key-0123456789";
const silent = pino({ level: "silent" });

type Seen = { readonly networks: readonly string[]; readonly internal: readonly boolean[] };

/** The networks of the running agent container this owner has, and whether each is internal. */
function networksOf(owner: string): Seen | undefined {
  const id = docker("ps", "--quiet", "--filter", `label=agentcage.owner=${owner}`).split("\n")[0];
  if (id === undefined || id === "") return undefined;
  const networks = Object.keys(JSON.parse(docker("inspect", "--format", "{{json .NetworkSettings.Networks}}", id)) as Record<string, unknown>);
  return { networks, internal: networks.map((name) => docker("network", "inspect", "--format", "{{.Internal}}", name) === "true") };
}

describe("the demo with a key set", () => {
  it("runs claude under the model policy, on an internal network of the Run's own, not on bridge", async () => {
    const env = { ANTHROPIC_API_KEY: KEY };
    const { network, warning } = chooseDemoNetwork("claude", env);
    expect(warning).toBeUndefined();
    // Before anything starts: were it a network with a route out, this Run would try the real API.
    expect(network).toEqual({ kind: "policy", policy: "model" });
    const opened = await openDemoRunner(network, { image: AGENT_IMAGE, gateway: { standIn: true, logger: silent } });
    try {
      const owner = `demo-test-${process.pid}`;
      const runner = createAgentRunner({ ...opened.options, environment: env, owner, logger: silent });
      let seen: Seen | undefined;
      const outcome = await runner.run({ cli: "claude", maxTurns: 3, timeoutSeconds: 120 }, "Say hi.", {
        onEvent: () => {
          seen ??= networksOf(owner);
        },
      });
      expect(outcome).toMatchObject({ ok: true, reason: "completed", network: { policy: "model" } });
      expect(seen?.networks).toHaveLength(1);
      expect(seen?.networks).not.toContain("bridge");
      expect(seen?.internal).toEqual([true]);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
