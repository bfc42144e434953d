// What the benches ask the engine through the `docker` command: one command's answer, and what a
// bench left behind (the containers and networks carrying any of its labels), counted at its end;
// and the engine's own floor for short containers, asked of its API straight on its socket.

import { execFileSync } from "node:child_process";
import http from "node:http";

export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** The ids of the containers and networks labelled with any of `labels` (`key=value`), each once. */
export function leftoversLabelled(...labels: string[]): string[] {
  const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);
  return [
    ...new Set(
      labels.flatMap((label) => [
        ...lines(docker("ps", "--all", "--quiet", "--filter", `label=${label}`)),
        ...lines(docker("network", "ls", "--quiet", "--filter", `label=${label}`)),
      ]),
    ),
  ];
}

/** The engine's socket, as DOCKER_HOST names it (unix:// only), else the default one. */
function engineSocket(): string {
  const host = process.env["DOCKER_HOST"];
  if (host === undefined || host === "") return "/var/run/docker.sock";
  if (!host.startsWith("unix://")) throw new Error(`DOCKER_HOST ${JSON.stringify(host)} is not a unix:// socket; the floor asks the engine over its socket`);
  return host.slice("unix://".length);
}

/** One Engine API call over the socket (API 1.41), its JSON answer; a status of 300 or more throws. */
function engineCall(agent: http.Agent, method: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers = data === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(data) };
    const request = http.request({ socketPath: engineSocket(), method, path: `/v1.41${path}`, agent, headers }, (answer) => {
      let text = "";
      answer.setEncoding("utf8");
      answer.on("data", (chunk: string) => {
        text += chunk;
      });
      answer.on("end", () =>
        (answer.statusCode ?? 500) >= 300
          ? reject(new Error(`${method} ${path}: ${answer.statusCode} ${text.trim()}`))
          : resolve(text === "" ? undefined : JSON.parse(text)),
      );
    });
    request.on("error", reject);
    request.end(data);
  });
}

/**
 * The engine's floor for `runs` containers, `atOnce` at a time: what `docker run --rm --network none
 * IMAGE true` asks of the Engine API (create with AutoRemove, wait until removed, start), straight on
 * its socket from this process, with no client process per container. Their wall time in ms.
 */
export async function engineFloorMs(image: string, runs: number, atOnce: number, labels: Readonly<Record<string, string>>): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 * atOnce });
  const one = async (): Promise<void> => {
    const { Id } = (await engineCall(agent, "POST", "/containers/create", {
      Image: image,
      Cmd: ["true"],
      Labels: labels,
      HostConfig: { NetworkMode: "none", AutoRemove: true },
    })) as { Id: string };
    const removed = engineCall(agent, "POST", `/containers/${Id}/wait?condition=removed`);
    await engineCall(agent, "POST", `/containers/${Id}/start`);
    const { StatusCode } = (await removed) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`a floor container exited ${StatusCode}`);
  };
  const started = performance.now();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: Math.min(atOnce, runs) }, async () => {
        while (next < runs) {
          next += 1;
          await one();
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return performance.now() - started;
}
