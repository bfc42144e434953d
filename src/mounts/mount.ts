// What a Mount Table entry means: a file or directory of the Staging Directory, bound at one
// path inside the Agent Container. Paths are posix on every host platform, and spellings that
// differ only in trailing or repeated slashes name the same path: normalizePath is the one
// place that decides this, for validation and for both renderings alike.
import { posix } from "node:path";

/** One bind mount: a file or directory of the Staging Directory, as the agent sees it. */
export type Mount = {
  /** Absolute path the agent sees inside its container, such as "/work". */
  readonly agentPath: string;
  /** Path relative to the Staging Directory; "" is the directory itself. */
  readonly path: string;
  /** Default false: the agent may change what it is given; mark inputs it must only read. */
  readonly readOnly?: boolean;
};

/** What the container can reach on disk. */
export type MountTable = {
  /** The Staging Directory: an absolute host path, where the daemon resolves bind sources. */
  readonly runtimeDir: string;
  /** One entry per directory or file, rendered in declaration order. */
  readonly entries: readonly Mount[];
};

/** Collapses repeated slashes and drops a trailing one from an absolute path; "/" stays "/". */
export function normalizePath(absolutePath: string): string {
  const normal = posix.normalize(absolutePath);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}
