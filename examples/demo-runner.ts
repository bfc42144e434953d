// What the demo's network choice takes to run: the stand-in model started for it, or the egress
// proxy (holding the real key; the agent gets a per-Run token and an internal network of its own),
// or nothing more for a policy or networks named by hand. Whatever it started, close() stops.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEgressGateway, type AgentRunnerOptions, type EgressGateway, type EgressGatewayOptions } from "../src/index.js";
import { standInRunnerOptions, startStandInModel, type RunningStandIn } from "../src/testing/index.js";
import type { DemoNetwork } from "./demo-network.js";

export type DemoRunnerOptions = {
  readonly image: string;
  /** For the proxy under `model`: its options past the Staging Directory it needs; default: its own. */
  readonly gateway?: Omit<EgressGatewayOptions, "runtimeDir">;
};

export type DemoRunner = {
  /** The runner's options for this network, for `createAgentRunner({ ...options, ...yours })`. */
  readonly options: AgentRunnerOptions;
  /** What the agent talks to, in words, for the demo's heading. */
  readonly against: string;
  readonly close: () => Promise<void>;
};

export async function openDemoRunner(network: DemoNetwork, demo: DemoRunnerOptions): Promise<DemoRunner> {
  const image = demo.image;
  if (network.kind === "stand-in") {
    const standIn: RunningStandIn = await startStandInModel("plain");
    return { options: { image, ...standInRunnerOptions(standIn) }, against: "the stand-in model (no key set)", close: standIn.stop };
  }
  if (network.kind === "networks")
    return { options: { image, networks: network.networks }, against: `the real API, over ${network.networks.join(", ")}`, close: async () => undefined };
  if (network.policy !== "model")
    return { options: { image, networkPolicy: network.policy }, against: `the real API, under network policy ${network.policy}`, close: async () => undefined };
  // The proxy's control socket and secret live in a directory the engine binds: this process's own.
  const runtimeDir = await mkdtemp(join(tmpdir(), "agentcage-demo-"));
  let egress: EgressGateway;
  try {
    egress = await startEgressGateway({ ...demo.gateway, runtimeDir });
  } catch (error) {
    await rm(runtimeDir, { recursive: true, force: true });
    throw error;
  }
  return {
    options: { image, networkPolicy: "model", egress },
    against: "the real API, under network policy model (the egress proxy holds the key)",
    close: async () => {
      await egress.close();
      await rm(runtimeDir, { recursive: true, force: true });
    },
  };
}
