// The Engine API rendering of a composed spec: the create body run() sends. It must mean what
// render-cli's words mean on every security-relevant field; a docker test compares the two.

import type { ContainerCreateOptions } from "dockerode";
import { type ComposedSpec, commandWords, effectiveEnv, tmpfsOptions } from "./compose.js";

export function renderCreateBody(spec: ComposedSpec): ContainerCreateOptions {
  const extra = spec.container.extra;
  const { entry, afterImage } = commandWords(spec);
  return {
    name: spec.name,
    Image: spec.image,
    ...(entry === undefined ? {} : { Entrypoint: [entry] }),
    // As the CLI does: the words after the image (rest of entrypoint, then the plan) are Cmd.
    Cmd: [...afterImage],
    User: spec.user,
    ...(spec.workdir === undefined ? {} : { WorkingDir: spec.workdir }),
    ...(extra.hostname === undefined ? {} : { Hostname: extra.hostname }),
    ...(extra.stopSignal === undefined ? {} : { StopSignal: extra.stopSignal }),
    // A stop the engine makes itself (docker stop, a shutdown) gives the agent the same grace as ours.
    StopTimeout: spec.stopGraceSeconds,
    Env: [...effectiveEnv(spec)].map(([name, value]) => `${name}=${value}`),
    Labels: { ...spec.labels },
    Tty: false,
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: false,
    HostConfig: {
      // Removal is explicit (after inspecting exit facts), not AutoRemove: see src/runtime/container/container-run.ts.
      AutoRemove: false,
      Init: true,
      ...(spec.container.containerRuntime === undefined ? {} : { Runtime: spec.container.containerRuntime }),
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": tmpfsOptions(spec) },
      PidsLimit: spec.pids,
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes,
      ...(spec.cpus === undefined ? {} : { NanoCpus: Math.round(spec.cpus * 1e9) }),
      Ulimits: [{ Name: "core", Soft: 0, Hard: 0 }],
      // The Run reads its streams by attach; a log file would keep them unmasked (and unbounded) on the host.
      LogConfig: { Type: "none", Config: {} },
      Mounts: spec.mounts.map((m) => ({ ...m })),
      // The first network at create; any others are connected before start (API 1.41 takes one).
      NetworkMode: spec.networks[0] ?? "none",
      ...(extra.addHosts.length === 0 ? {} : { ExtraHosts: [...extra.addHosts] }),
      ...(extra.dns.length === 0 ? {} : { Dns: [...extra.dns] }),
    },
  };
}
