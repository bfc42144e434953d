// The CLI rendering of a composed spec: the exact `docker run` words a person could paste.
// This is the one place argument order is decided; env values never enter these words.

import type { ComposedSpec } from "./compose.js";
import { OWNER_LABEL, RUN_LABEL, tmpfsOptions } from "./compose.js";
import { redactExtraArgs } from "./extra-args.js";

export type ComposedCommand = {
  /** The client to spawn, e.g. "docker". */
  readonly command: string;
  /** Its arguments, starting with any further words of containerCommand, then `run`. */
  readonly args: readonly string[];
  /** `args` with any value smuggled through extraArgs hidden; safe to log. */
  readonly redactedArgs: readonly string[];
  /** The values behind each `--env NAME`, for the spawned client's environment. Secret. */
  readonly env: Readonly<Record<string, string>>;
  /** What to write to the client's stdin. */
  readonly stdin: string | Uint8Array;
};

/** The words after the client; `extraArgs` lets the loggable copy pass a redacted form of them. */
export function renderCliArgs(spec: ComposedSpec, extraArgs: readonly string[] = spec.container.extraArgs ?? []): string[] {
  const c = spec.container;
  const [entry, ...entryRest] = spec.entrypoint ?? [];
  const envNames = Object.keys(c.env ?? {});
  // Declared labels and the runtime's own; extraArgs labels come later, in extraArgs, and win.
  const ownLabels = Object.entries({ ...c.labels, [RUN_LABEL]: spec.labels[RUN_LABEL], [OWNER_LABEL]: spec.labels[OWNER_LABEL] });
  return [
    "run",
    "--rm",
    "--interactive",
    "--init",
    "--cap-drop", "ALL",
    "--security-opt", "no-new-privileges",
    "--read-only",
    "--tmpfs", `/tmp:${tmpfsOptions(spec)}`,
    "--pids-limit", String(spec.pids),
    "--memory", String(spec.memoryBytes),
    "--memory-swap", String(spec.memoryBytes),
    ...(spec.cpus === undefined ? [] : ["--cpus", String(spec.cpus)]),
    "--ulimit", "core=0",
    ...spec.mountArgs,
    "--user", spec.user,
    ...(c.workdir === undefined ? [] : ["--workdir", c.workdir]),
    ...(spec.networks.length === 0 ? ["--network", "none"] : spec.networks.flatMap((n) => ["--network", n])),
    ...envNames.flatMap((name) => ["--env", name]),
    "--name", spec.name,
    ...ownLabels.flatMap(([k, v]) => ["--label", `${k}=${v}`]),
    ...(entry === undefined ? [] : ["--entrypoint", entry]),
    ...extraArgs,
    spec.image,
    ...entryRest,
    ...spec.planArgs,
  ];
}

export function renderCommand(spec: ComposedSpec, stdin: string | Uint8Array): ComposedCommand {
  const [command, ...clientArgs] = spec.container.containerCommand ?? ["docker"];
  const args = [...clientArgs, ...renderCliArgs(spec)];
  const redactedArgs = [...clientArgs, ...renderCliArgs(spec, redactExtraArgs(spec.container.extraArgs ?? []))];
  return { command: command as string, args, redactedArgs, env: { ...spec.container.env }, stdin };
}
