// The one seam to a container engine: the handful of operations a Run and a sweep need, spoken in
// the composed spec and plain byte streams. Docker's create body and its multiplexed frames stay
// behind the Docker implementation (docker.ts), so podman's or Kubernetes' can slot in beside it.

import type { Readable, Writable } from "node:stream";
import type { ComposedSpec } from "../container/index.js";

export type ContainerState = { readonly exitCode: number; readonly oomKilled: boolean; readonly running: boolean };
export type ListedContainer = { readonly id: string; readonly labels: Readonly<Record<string, string>> };

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
};
