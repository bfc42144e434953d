// Starts the stand-in model server (images/stand-in) in a container with no network, for the
// demo: an agent container that joins it (`container:<id>`) reaches it on loopback and nothing else.

import Docker from "dockerode";

import { createFrameDemuxer } from "../runtime/frames.js";
import { STAND_IN_IMAGE } from "./build-image.js";

export const STAND_IN_PORT = 8080;
const STARTUP_TIMEOUT_MS = 20_000;

/** One line the stand-in logged about a request it answered. */
export type StandInRequest = { readonly event: string; readonly method?: string; readonly path?: string };

export type RunningStandIn = {
  readonly id: string;
  /** The network an agent container joins to reach it: `container:<id>`. */
  readonly network: string;
  readonly baseUrl: string;
  /** The requests it has answered so far, from its log. */
  readonly requests: () => Promise<StandInRequest[]>;
  readonly stop: () => Promise<void>;
};

export async function startStandInModel(scenario: string, docker: Docker = new Docker()): Promise<RunningStandIn> {
  const container = await docker.createContainer({
    Image: STAND_IN_IMAGE,
    Env: [`SCENARIO=${scenario}`, `PORT=${STAND_IN_PORT}`],
    User: "10002:10002",
    Labels: { "agentcage.demo": "stand-in" },
    HostConfig: { NetworkMode: "none", ReadonlyRootfs: true, CapDrop: ["ALL"], SecurityOpt: ["no-new-privileges"], AutoRemove: false },
  });
  const stop = async () => {
    await container.remove({ force: true }).catch(() => undefined);
  };
  // Without a TTY the log comes multiplexed, as an attach stream does: split it the same way.
  const logs = async (): Promise<string> => {
    const parts: Uint8Array[] = [];
    createFrameDemuxer((_stream, payload) => void parts.push(Uint8Array.prototype.slice.call(payload)))(await container.logs({ stdout: true, stderr: true }));
    return Buffer.concat(parts).toString("utf8");
  };
  try {
    await container.start();
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      const text = await logs();
      if (text.includes('"event":"listening"')) break;
      if (Date.now() > deadline) throw new Error(`the stand-in model did not start within ${STARTUP_TIMEOUT_MS} ms: ${text.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const requests = async (): Promise<StandInRequest[]> =>
    (await logs())
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as StandInRequest)
      .filter((line) => line.event === "request");
  return { id: container.id, network: `container:${container.id}`, baseUrl: `http://127.0.0.1:${STAND_IN_PORT}`, requests, stop };
}
