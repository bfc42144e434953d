// Starts the stand-in model server in a container of its own with no network at all, for an
// agent container to join (`--network container:<id>`): the agent then reaches the stand-in on
// loopback and nothing else. Built by `npm test`'s provisioning (images/stand-in).

import { execFileSync } from "node:child_process";
import { docker } from "./engine.js";

export const AGENT_IMAGE = "agentcage-agent:latest";
export const STAND_IN_IMAGE = "agentcage-stand-in:latest";
export const STAND_IN_PORT = 8080;
const STARTUP_TIMEOUT_MS = 20_000;

export type StandInContainer = {
  readonly id: string;
  /** The network an agent container joins to reach it: `container:<id>`. */
  readonly network: string;
  /** What the stand-in logged: one JSON line per request. */
  readonly requests: () => Array<{ event: string; path?: string; method?: string }>;
  readonly close: () => void;
};

export async function startStandInContainer(scenario: string): Promise<StandInContainer> {
  const id = docker(
    "run", "--detach", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
    "--user", "10002:10002", "--label", "agentcage.test=stand-in",
    "--env", `SCENARIO=${scenario}`, "--env", `PORT=${STAND_IN_PORT}`,
    STAND_IN_IMAGE,
  );
  const logs = () => execFileSync("docker", ["logs", id], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!logs().includes('"event":"listening"')) {
    if (Date.now() > deadline) {
      const output = logs();
      docker("rm", "--force", id);
      throw new Error(`the stand-in model did not start within ${STARTUP_TIMEOUT_MS} ms: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    id,
    network: `container:${id}`,
    requests: () =>
      logs()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { event: string; path?: string; method?: string })
        .filter((line) => line.event === "request"),
    close: () => void execFileSync("docker", ["rm", "--force", id], { stdio: "ignore" }),
  };
}
