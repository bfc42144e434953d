// The only file that knows dockerode: the handful of Engine API operations the runtime uses.
// Everything above this interface reads without dockerode's types and can be reasoned about alone.

import Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import type { Duplex } from "node:stream";

export type ContainerState = { readonly exitCode: number; readonly oomKilled: boolean; readonly running: boolean };
export type ListedContainer = { readonly id: string; readonly labels: Readonly<Record<string, string>> };

export type Engine = {
  readonly create: (body: ContainerCreateOptions) => Promise<string>;
  readonly connectNetwork: (id: string, network: string) => Promise<void>;
  /** A hijacked stream: write stdin to it, read multiplexed stdout/stderr frames from it. */
  readonly attach: (id: string) => Promise<Duplex>;
  readonly start: (id: string) => Promise<void>;
  /** Resolves when the container is not running, with its exit code. */
  readonly wait: (id: string) => Promise<number>;
  readonly inspect: (id: string) => Promise<ContainerState>;
  readonly kill: (id: string, signal: string) => Promise<void>;
  /** Force-removes; a container already gone is not an error. */
  readonly remove: (id: string) => Promise<void>;
  readonly listByLabel: (label: string) => Promise<ListedContainer[]>;
};

/** HTTP status of an Engine API error, when there is one. */
export function engineStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** The daemon's own words for an Engine API error, else the error's message. */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  if (json && typeof json.message === "string") return json.message.trim();
  const reason = (error as { reason?: unknown } | null)?.reason;
  const message = error instanceof Error ? error.message : String(error);
  return typeof reason === "string" && !message.includes(reason) ? `${reason}: ${message}` : message;
}

export function createDockerEngine(docker: Docker = new Docker()): Engine {
  const gone = (error: unknown): boolean => {
    const status = engineStatus(error);
    // 404: already removed; 409: removal already in progress.
    return status === 404 || status === 409;
  };
  return {
    create: async (body) => (await docker.createContainer(body)).id,
    connectNetwork: async (id, network) => {
      await docker.getNetwork(network).connect({ Container: id });
    },
    attach: async (id) =>
      (await docker.getContainer(id).attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex,
    start: async (id) => {
      await docker.getContainer(id).start();
    },
    wait: async (id) => ((await docker.getContainer(id).wait()) as { StatusCode: number }).StatusCode,
    inspect: async (id) => {
      const info = await docker.getContainer(id).inspect();
      return { exitCode: info.State.ExitCode, oomKilled: info.State.OOMKilled, running: info.State.Running };
    },
    kill: async (id, signal) => {
      try {
        await docker.getContainer(id).kill({ signal });
      } catch (error) {
        // 409: not running any more, which is what a kill wanted.
        if (!gone(error)) throw error;
      }
    },
    remove: async (id) => {
      try {
        await docker.getContainer(id).remove({ force: true, v: true });
      } catch (error) {
        if (!gone(error)) throw error;
      }
    },
    listByLabel: async (label) =>
      (await docker.listContainers({ all: true, filters: { label: [label] } })).map((c) => ({ id: c.Id, labels: c.Labels })),
  };
}
