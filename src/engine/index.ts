/**
 * The engine seam: the one place the project talks to a container engine, and the only code that
 * imports dockerode values. Docker's Engine API today; podman's Docker-compatible API works through
 * the same implementation, and another engine (Kubernetes) implements `Engine` beside it.
 *
 * ```ts
 * const engine = createDockerEngine(new Docker({ socketPath: "/run/podman/podman.sock" }));
 * const runtime = createAgentContainerRuntime({ container, run: plan, engine });
 * ```
 */
export type {
  ContainerExec,
  ContainerExitEvent,
  ContainerMount,
  ContainerState,
  ContainerStreams,
  Engine,
  EngineComponent,
  EngineFacts,
  EngineRuntime,
  ImageBuildSpec,
  ImageFacts,
  ListedContainer,
  ListedNetwork,
  ListedVolume,
  MemoryVolumeSpec,
  NetworkSpec,
} from "./engine.js";
export type { EngineAddress } from "./address.js";
export { createDockerEngine } from "./docker.js";
export { describeEngineAddress, engineAt, parseEngineAddress } from "./address.js";
export { connectionMessage, connectionTroubleKind, describeEngineError, engineMessage, engineNamed, engineShownGone, engineStatus } from "./errors.js";
