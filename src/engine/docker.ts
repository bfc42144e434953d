// The Docker implementation of the engine seam, over dockerode: the composed spec becomes the
// Engine API create body (src/container/render-api.ts), and the multiplexed attach stream is split
// into stdout and stderr here, with backpressure from either reader back to the daemon's socket.

import type Docker from "dockerode";
import { connectDocker } from "./connect.js";
import type { Duplex, Readable } from "node:stream";
import { renderCreateBody } from "../container/index.js";
import type { ContainerExitEvent, Engine } from "./engine.js";
import { splitAttachStream } from "./attach-stream.js";
import { containerMountsOf, cpuNanosOf, engineFactsOf, imageFactsOf } from "./docker-facts.js";
import { engineStatus } from "./errors.js";
import { dockerExec } from "./docker-exec.js";

/** 404: already removed; 409: removal in progress, or (for kill) not running any more. */
function gone(error: unknown): boolean {
  const status = engineStatus(error);
  return status === 404 || status === 409;
}

export function createDockerEngine(docker: Docker = connectDocker()): Engine {
  const remove = async (idOrName: string): Promise<void> => {
    try {
      await docker.getContainer(idOrName).remove({ force: true, v: true });
    } catch (error) {
      if (!gone(error)) throw error;
    }
  };
  return {
    create: async (spec) => {
      const id = (await docker.createContainer(renderCreateBody(spec))).id;
      // API 1.41 takes one network at create; the others are joined before start.
      try {
        for (const network of spec.networks.slice(1)) await docker.getNetwork(network).connect({ Container: id });
      } catch (error) {
        await remove(id).catch(() => undefined);
        throw error;
      }
      return id;
    },
    attach: async (id) =>
      splitAttachStream((await docker.getContainer(id).attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex),
    start: async (id) => {
      await docker.getContainer(id).start();
    },
    wait: async (id) => ((await docker.getContainer(id).wait()) as { StatusCode: number }).StatusCode,
    exitEvent: (id, signal) => exitEventOf(docker, id, signal),
    inspect: async (id) => {
      try {
        const info = await docker.getContainer(id).inspect();
        return { exitCode: info.State.ExitCode, oomKilled: info.State.OOMKilled, running: info.State.Running };
      } catch (error) {
        if (engineStatus(error) === 404) return undefined;
        throw error;
      }
    },
    kill: async (id, signal) => {
      try {
        await docker.getContainer(id).kill({ signal });
      } catch (error) {
        if (!gone(error)) throw error;
      }
    },
    remove,
    ping: async () => {
      await docker.ping();
    },
    hasImage: async (image) => {
      try {
        await docker.getImage(image).inspect();
        return true;
      } catch (error) {
        if (engineStatus(error) === 404) return false;
        throw error;
      }
    },
    facts: async () => {
      const [version, info] = await Promise.all([docker.version(), docker.info() as Promise<unknown>]);
      return engineFactsOf(version, info);
    },
    inspectImage: async (image) => {
      try {
        return imageFactsOf(await docker.getImage(image).inspect());
      } catch (error) {
        if (engineStatus(error) === 404) return undefined;
        throw error;
      }
    },
    buildImage: async (spec) =>
      (await docker.buildImage(spec.context, {
        t: spec.tag,
        dockerfile: spec.dockerfile,
        buildargs: { ...spec.buildArgs },
        labels: { ...spec.labels },
        // The legacy builder's intermediate containers go even when a step fails.
        rm: true,
        forcerm: true,
      })) as AsyncIterable<Uint8Array>,
    removeImage: async (idOrTag) => {
      try {
        await docker.getImage(idOrTag).remove();
      } catch (error) {
        if (engineStatus(error) !== 404) throw error;
      }
    },
    labelsOf: async (idOrName) => {
      try {
        return { ...((await docker.getContainer(idOrName).inspect()).Config.Labels ?? {}) };
      } catch (error) {
        if (engineStatus(error) === 404) return undefined;
        throw error;
      }
    },
    mountsOf: async (idOrName) => {
      try {
        return containerMountsOf(await docker.getContainer(idOrName).inspect());
      } catch (error) {
        if (engineStatus(error) === 404) return undefined;
        throw error;
      }
    },
    cpuUsage: async (id, signal) => {
      try {
        // One-shot: the engine's latest reading, not two readings a second apart (API 1.41+; an
        // older engine ignores it and answers a second later, which a watchdog tolerates).
        const stats = await docker.getContainer(id).stats({ stream: false, "one-shot": true, ...(signal === undefined ? {} : { abortSignal: signal }) });
        return cpuNanosOf(stats);
      } catch (error) {
        if (gone(error)) return undefined;
        throw error;
      }
    },
    listByLabel: async (label) =>
      (await docker.listContainers({ all: true, filters: { label: [label] } })).map((c) => ({
        id: c.Id,
        labels: c.Labels,
        running: c.State === "running",
      })),
    createNetwork: async (spec) => {
      const network = await docker.createNetwork({
        Name: spec.name,
        Driver: "bridge",
        Internal: spec.internal,
        CheckDuplicate: true,
        Labels: { ...spec.labels },
        // Without an address of the host's on the bridge, a member of an internal network cannot
        // reach the host's own services either (an internal network alone still lets it).
        Options: spec.internal ? { "com.docker.network.bridge.inhibit_ipv4": "true" } : {},
        ...(spec.subnet === undefined ? {} : { IPAM: { Driver: "default", Config: [{ Subnet: spec.subnet }] } }),
      });
      const info = (await network.inspect()) as { IPAM?: { Config?: Array<{ Subnet?: string }> } };
      return { subnets: (info.IPAM?.Config ?? []).flatMap((config) => (config.Subnet === undefined ? [] : [config.Subnet])) };
    },
    connectNetwork: async (network, container, aliases) => {
      await docker.getNetwork(network).connect({ Container: container, EndpointConfig: { Aliases: [...aliases] } });
    },
    removeNetwork: async (name) => {
      const network = docker.getNetwork(name);
      try {
        const info = (await network.inspect()) as { Containers?: Record<string, unknown> };
        for (const member of Object.keys(info.Containers ?? {})) {
          await network.disconnect({ Container: member, Force: true }).catch((error: unknown) => {
            if (!gone(error)) throw error;
          });
        }
        await network.remove();
      } catch (error) {
        if (!gone(error)) throw error;
      }
    },
    listNetworksByLabel: async (label) =>
      ((await docker.listNetworks({ filters: { label: [label] } })) as Array<{ Name: string; Labels?: Record<string, string> }>).map((n) => ({
        name: n.Name,
        labels: n.Labels ?? {},
      })),
    createVolume: async (spec) => {
      const owner = spec.uid === undefined ? [] : [`uid=${spec.uid}`, `gid=${spec.gid ?? spec.uid}`];
      await docker.createVolume({
        Name: spec.name,
        Driver: "local",
        // The local driver mounts it (type tmpfs) when a container first uses it, and unmounts it after the last.
        DriverOpts: { type: "tmpfs", device: "tmpfs", o: [`size=${spec.bytes}`, `nr_inodes=${spec.inodes}`, `mode=${spec.mode}`, ...owner].join(",") },
        Labels: { ...spec.labels },
      });
    },
    removeVolume: async (name) => {
      try {
        await docker.getVolume(name).remove({ force: true });
      } catch (error) {
        if (engineStatus(error) !== 404) throw error;
      }
    },
    listVolumesByLabel: async (label) =>
      (
        (
          (await docker.listVolumes({ filters: { label: [label] } })) as {
            Volumes?: Array<{ Name: string; Labels?: Record<string, string> | null }> | null;
          }
        ).Volumes ?? []
      ).map((v) => ({
        name: v.Name,
        labels: v.Labels ?? {},
      })),
    getArchive: async (container, path, signal) =>
      (await docker.getContainer(container).getArchive({ path, ...(signal === undefined ? {} : { abortSignal: signal }) })) as unknown as Readable,
    putArchive: async (container, path, archive, signal) => {
      await docker.getContainer(container).putArchive(archive, { path, ...(signal === undefined ? {} : { abortSignal: signal }) });
    },
    exec: (container, argv) => dockerExec(docker, container, argv),
  };
}

/**
 * The container's `die` event, and whether an `oom` event came before it. `since` 0: what the engine
 * still holds of the moments before the call (an out-of-memory kill of a pooled container before its
 * claim) is heard too. Nothing told (the listening refused, broken or stopped): undefined.
 */
async function exitEventOf(docker: Docker, id: string, signal: AbortSignal): Promise<ContainerExitEvent | undefined> {
  let stream: Readable;
  try {
    // dockerode passes abortSignal on to the request, though its types do not say so.
    const options: Docker.GetEventsOptions & { readonly abortSignal: AbortSignal } = {
      since: 0,
      filters: { type: ["container"], container: [id], event: ["die", "oom"] },
      abortSignal: signal,
    };
    stream = (await docker.getEvents(options)) as unknown as Readable;
  } catch {
    return undefined;
  }
  return await new Promise<ContainerExitEvent | undefined>((resolve) => {
    let oomKilled = false;
    let buffered = "";
    const settle = (exit: ContainerExitEvent | undefined): void => {
      signal.removeEventListener("abort", stopped);
      stream.destroy();
      resolve(exit);
    };
    const stopped = (): void => settle(undefined);
    if (signal.aborted) return stopped();
    signal.addEventListener("abort", stopped, { once: true });
    stream.on("error", stopped).on("close", stopped).on("end", stopped);
    stream.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let end = buffered.indexOf("\n");
      while (end >= 0) {
        const event = parsedEvent(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        end = buffered.indexOf("\n");
        if (event?.Action === "oom") oomKilled = true;
        if (event?.Action !== "die") continue;
        const exitCode = Number(event.Actor?.Attributes?.exitCode);
        return settle(Number.isInteger(exitCode) ? { exitCode, oomKilled } : undefined);
      }
    });
  });
}

type EngineEvent = { readonly Action?: string; readonly Actor?: { readonly Attributes?: Readonly<Record<string, string>> } };

function parsedEvent(line: string): EngineEvent | undefined {
  try {
    const event = JSON.parse(line) as unknown;
    return typeof event === "object" && event !== null ? (event as EngineEvent) : undefined;
  } catch {
    return undefined;
  }
}
