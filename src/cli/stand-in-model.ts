// Starts the stand-in model server (images/stand-in) in a container with no network, for the
// demo: an agent container that joins it (`container:<id>`) reaches it on loopback and nothing else.

import Docker from "dockerode";

export const STAND_IN_IMAGE = "agentcage-stand-in:latest";
export const STAND_IN_PORT = 8080;
const STARTUP_TIMEOUT_MS = 20_000;

export type RunningStandIn = { readonly network: string; readonly baseUrl: string; readonly stop: () => Promise<void> };

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
  try {
    await container.start();
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    for (;;) {
      const logs = (await container.logs({ stdout: true, stderr: true })).toString("utf8");
      if (logs.includes('"event":"listening"')) break;
      if (Date.now() > deadline) throw new Error(`the stand-in model did not start within ${STARTUP_TIMEOUT_MS} ms: ${logs.slice(-500)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { network: `container:${container.id}`, baseUrl: `http://127.0.0.1:${STAND_IN_PORT}`, stop };
}
