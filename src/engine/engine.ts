// The one seam to a container engine: the handful of operations a Run and a sweep need, spoken in
// the composed spec and plain byte streams. Docker's create body and its multiplexed frames stay
// behind the Docker implementation (docker.ts), so podman's or Kubernetes' can slot in beside it.

import type { Duplex, Readable, Writable } from "node:stream";
import type { ComposedSpec } from "../container/index.js";

export type ContainerState = { readonly exitCode: number; readonly oomKilled: boolean; readonly running: boolean };
/** A container's exit as the engine's event tells it: its exit code, and whether it ran out of memory while listened to. */
export type ContainerExitEvent = { readonly exitCode: number; readonly oomKilled: boolean };
export type ListedContainer = {
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Whether it runs now (a created or exited one does not). */
  readonly running: boolean;
};
export type ListedNetwork = { readonly name: string; readonly labels: Readonly<Record<string, string>> };

/** A network of one Run's own (see src/runtime/network/run-network.ts). */
export type NetworkSpec = {
  readonly name: string;
  /**
   * True: no route out of it, and the engine's host holds no address on it (Docker: `--internal`
   * and `com.docker.network.bridge.inhibit_ipv4`), so its members reach each other and nothing else.
   * False: the engine's usual bridge with a route out through its NAT.
   */
  readonly internal: boolean;
  readonly labels: Readonly<Record<string, string>>;
  /** Its address range (CIDR), chosen by the caller; default: one from the engine's own address pools. */
  readonly subnet?: string;
};

/**
 * A volume of one Run's own held in the engine host's memory (Docker: the `local` driver's tmpfs):
 * at most `bytes` and `inodes`, owned by `uid`:`gid` when given. Its content lives only while a
 * container mounts it: the engine unmounts it, and drops what it held, when the last one stops.
 */
export type MemoryVolumeSpec = {
  readonly name: string;
  readonly bytes: number;
  readonly inodes: number;
  /** Owner of its root; default root (0). */
  readonly uid?: number;
  readonly gid?: number;
  /** Octal mode of its root, such as "0755". */
  readonly mode: string;
  readonly labels: Readonly<Record<string, string>>;
};

export type ListedVolume = { readonly name: string; readonly labels: Readonly<Record<string, string>> };

/** One part of the engine as it reports itself (Docker: Engine, containerd, runc, docker-init). */
export type EngineComponent = {
  readonly name: string;
  readonly version: string;
  /** What else it says of its build: a commit, or a distribution's package version; "" when nothing. */
  readonly detail: string;
};

/** An OCI runtime registered with the engine (runc, runsc, crun, ...). */
export type EngineRuntime = {
  readonly name: string;
  /** The binary the engine runs for it, when the engine says. */
  readonly path?: string;
};

/** What the engine says of itself: enough to judge whether the confinement of a Run can be trusted. */
export type EngineFacts = {
  /** "Docker Engine", "Podman Engine", "Docker Desktop 4.30.0 (149282)". */
  readonly name: string;
  readonly serverVersion: string;
  readonly apiVersion: string;
  /** As the engine's own build names them: "linux", "amd64". */
  readonly os: string;
  readonly arch: string;
  readonly kernelVersion: string;
  /** The engine host's operating system: "Debian GNU/Linux 12 (bookworm)"; "" when not said. */
  readonly operatingSystem: string;
  /** The runtime a container gets when it names none, as every Run does; "" when not said. */
  readonly defaultRuntime: string;
  readonly runtimes: readonly EngineRuntime[];
  readonly components: readonly EngineComponent[];
  /** "name=seccomp,profile=default", "name=rootless", ... */
  readonly securityOptions: readonly string[];
  /** "1" or "2"; "" when not said. */
  readonly cgroupVersion: string;
};

/** What the engine holds of one image. */
export type ImageFacts = {
  readonly id: string;
  /** When it was built, as the engine says (RFC 3339). */
  readonly created: string;
  readonly os: string;
  readonly arch: string;
  readonly labels: Readonly<Record<string, string>>;
};

/** One image to build (Engine.buildImage). */
export type ImageBuildSpec = {
  /** The build context: a tar archive of the Dockerfile and every file it copies. */
  readonly context: Readable;
  /** The reference the image is tagged with: `name[:tag]`. */
  readonly tag: string;
  /** Path of the Dockerfile inside the context. */
  readonly dockerfile: string;
  /** The values of the Dockerfile's ARGs. */
  readonly buildArgs: Readonly<Record<string, string>>;
  /** Labels the image carries besides the Dockerfile's own. */
  readonly labels: Readonly<Record<string, string>>;
};

/** A bind or volume of a container, as the engine's host sees its source. */
export type ContainerMount = { readonly source: string; readonly destination: string; readonly readOnly: boolean };

/** A container's three standard streams, attached before it starts so no early byte is lost. */
export type ContainerStreams = {
  /** Ending it closes the agent's stdin. */
  readonly stdin: Writable;
  /** Pausing it (not reading) pauses the container's output: backpressure reaches the agent. */
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Drops the connection: both readables end, stdin is closed. */
  readonly close: () => void;
  /** Settles, with the reason, if the engine broke its own stream protocol; both readables then end. */
  readonly broken: Promise<string>;
};

/**
 * A program run in a live container (Engine.exec), without a TTY: its stdin and stdout as one
 * duplex (a byte pipe into the container that crosses no network of its own), its stderr apart.
 */
export type ContainerExec = {
  /** Writing feeds its stdin, ending it closes that stdin; reading gives its stdout. Destroying it drops the connection. */
  readonly stdio: Duplex;
  readonly stderr: Readable;
  /** Its exit code once its output ended; undefined when the engine cannot say (its container went). */
  readonly exit: Promise<number | undefined>;
};

export type Engine = {
  /**
   * Creates the container the spec describes, named `spec.name`, joined to every network it
   * declares; resolves with its id. On failure nothing of it is left, as far as the engine answered.
   */
  readonly create: (spec: ComposedSpec) => Promise<string>;
  readonly attach: (id: string) => Promise<ContainerStreams>;
  readonly start: (id: string) => Promise<void>;
  /** Resolves when the container is not running, with its exit code. */
  readonly wait: (id: string) => Promise<number>;
  /**
   * The container's exit the moment the engine tells it (Docker: its `die` event), and whether the
   * engine said, while this listened, that it ran out of memory (an `oom` event before it). Docker tells
   * it before releasing what the container held (its networks, its mounts), and answers `wait` and
   * `inspect` only after. Listens from the call (and to what the engine still holds of the moments
   * before it) until the exit, or until `signal` aborts; undefined when the engine did not tell.
   * Optional: an engine without it is waited for (`wait`) and inspected.
   */
  readonly exitEvent?: (id: string, signal: AbortSignal) => Promise<ContainerExitEvent | undefined>;
  /** Undefined when no such container exists (any more): someone removed it. */
  readonly inspect: (id: string) => Promise<ContainerState | undefined>;
  /** A container that is not running (any more) is not an error. */
  readonly kill: (id: string, signal: string) => Promise<void>;
  /** Force-removes by id or name; a container already gone is not an error. */
  readonly remove: (idOrName: string) => Promise<void>;
  readonly listByLabel: (label: string) => Promise<ListedContainer[]>;
  /** Resolves when the engine answers at all; rejects when it does not. */
  readonly ping: () => Promise<void>;
  /** Whether the engine holds this image (nothing is pulled). */
  readonly hasImage: (image: string) => Promise<boolean>;
  /** The engine's version, runtimes and components. */
  readonly facts: () => Promise<EngineFacts>;
  /** Undefined when the engine does not hold this image (nothing is pulled). */
  readonly inspectImage: (image: string) => Promise<ImageFacts | undefined>;
  /**
   * Builds an image from `spec.context` and tags it `spec.tag`, leaving no intermediate container
   * behind, failed step or not. Resolves once the engine took the build, with its progress as the
   * engine writes it: JSON lines in the Engine API's build form (`stream` and `status` text, the
   * image's id as `aux.ID`, and `error` with `errorDetail` when a step fails, which is said there,
   * not by a rejection). The tag is set only when the progress ends without an error.
   */
  readonly buildImage: (spec: ImageBuildSpec) => Promise<AsyncIterable<Uint8Array>>;
  /** Removes an image by id or tag, unforced: one a container still uses is refused (409). One already gone is not an error. */
  readonly removeImage: (idOrTag: string) => Promise<void>;
  /** A container's labels; undefined when no such container exists. */
  readonly labelsOf: (idOrName: string) => Promise<Readonly<Record<string, string>> | undefined>;
  /** A container's mounts, sources as the engine's host sees them; undefined when no such container exists. */
  readonly mountsOf: (idOrName: string) => Promise<readonly ContainerMount[] | undefined>;
  /**
   * The CPU time all of a container's processes have used so far, in nanoseconds: one reading, not
   * a stream, answered without waiting to sample twice. Undefined when the container is gone or not
   * running. `signal` abandons the question (a watchdog bounds each one).
   */
  readonly cpuUsage: (id: string, signal?: AbortSignal) => Promise<number | undefined>;
  /** Creates a network; a name already taken is refused (409). Resolves with the address ranges the engine gave it. */
  readonly createNetwork: (spec: NetworkSpec) => Promise<{ readonly subnets: readonly string[] }>;
  /** Joins a running container to a network, known there under `aliases`. */
  readonly connectNetwork: (network: string, container: string, aliases: readonly string[]) => Promise<void>;
  /** Takes every member off the network (members keep running) and removes it; a network already gone is not an error. */
  readonly removeNetwork: (name: string) => Promise<void>;
  readonly listNetworksByLabel: (label: string) => Promise<ListedNetwork[]>;
  /** Creates a size-limited in-memory volume; a name already taken is refused (409). */
  readonly createVolume: (spec: MemoryVolumeSpec) => Promise<void>;
  /** Removes a volume no container uses; one already gone is not an error. */
  readonly removeVolume: (name: string) => Promise<void>;
  readonly listVolumesByLabel: (label: string) => Promise<ListedVolume[]>;
  /**
   * A tar archive of `path` inside a container (Docker: GET /containers/{id}/archive), the
   * directory itself as its first entry. `signal` abandons it; the reader ends or errors.
   */
  readonly getArchive: (container: string, path: string, signal?: AbortSignal) => Promise<Readable>;
  /**
   * Unpacks the tar archive `archive` into the existing directory `path` inside a container (Docker:
   * PUT /containers/{id}/archive), owners and modes as its headers say. `signal` abandons it.
   */
  readonly putArchive: (container: string, path: string, archive: Readable, signal?: AbortSignal) => Promise<void>;
  /**
   * Runs `argv` in a running container, as its own user, and resolves once its streams are
   * connected (Docker: an exec, started hijacked). Rejects when the engine refuses it (no such
   * container, not running); a program that cannot be run is an exit code (126, 127), not a rejection.
   */
  readonly exec: (container: string, argv: readonly string[]) => Promise<ContainerExec>;
};
