// The CLI rendering of a composed spec: the exact `docker run` words a person could paste.
// This is the one place argument order is decided; env values never enter these words.

import { type ComposedSpec, commandWords, effectiveEnv, OWNER_LABEL, RUN_LABEL, tmpfsOptions } from "./compose.js";
import { cliExtraArgs } from "./extra-args.js";
import type { Masker } from "../redact/index.js";

/** The `docker run` words of a Run, as a person could paste them, with env values kept apart: `env` is secret, `redactedArgs` safe to log. */
export type ComposedCommand = {
  /** The client to spawn, e.g. "docker". */
  readonly command: string;
  /** Its arguments, starting with any further words of containerCommand, then `run`. */
  readonly args: readonly string[];
  /** `args` with every registered secret masked (say a plan passed one as an argument); safe to log. */
  readonly redactedArgs: readonly string[];
  /**
   * The values behind each `--env NAME`, to add to the spawned client's environment. Secret.
   * A name the client reads itself (PATH, HOME, DOCKER_*) affects the client as well.
   */
  readonly env: Readonly<Record<string, string>>;
  /** What to write to the client's stdin. */
  readonly stdin: string | Uint8Array;
};

/**
 * The words after the client. Several networks render as repeated `--network`, which engines
 * before API 1.44 refuse in one `docker run`; run() connects the extra ones itself.
 */
export function renderCliArgs(spec: ComposedSpec): string[] {
  const c = spec.container;
  const { entry, afterImage } = commandWords(spec);
  const envNames = [...new Set([...Object.keys(c.env ?? {}), ...spec.runEnvNames])];
  // Declared labels and the runtime's own; extraArgs labels come later, in extraArgs, and win.
  const ownLabels = Object.entries({ ...c.labels, ...spec.runLabels, [RUN_LABEL]: spec.labels[RUN_LABEL], [OWNER_LABEL]: spec.labels[OWNER_LABEL] });
  return [
    "run",
    "--rm",
    "--interactive",
    "--init",
    ...(c.containerRuntime === undefined ? [] : ["--runtime", c.containerRuntime]),
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--read-only",
    "--tmpfs",
    `/tmp:${tmpfsOptions(spec)}`,
    "--pids-limit",
    String(spec.pids),
    "--memory",
    String(spec.memoryBytes),
    "--memory-swap",
    String(spec.memoryBytes),
    ...(spec.cpus === undefined ? [] : ["--cpus", String(Math.round(spec.cpus * 1e9) / 1e9)]),
    "--ulimit",
    "core=0",
    "--log-driver",
    "none",
    "--stop-timeout",
    String(spec.stopGraceSeconds),
    ...spec.mountArgs,
    "--user",
    spec.user,
    ...(spec.declaredWorkdir === undefined ? [] : ["--workdir", spec.declaredWorkdir]),
    ...(spec.networks.length === 0 ? ["--network", "none"] : spec.networks.flatMap((n) => ["--network", n])),
    ...Object.entries(c.publicEnv ?? {}).flatMap(([name, value]) => ["--env", `${name}=${value}`]),
    ...envNames.flatMap((name) => ["--env", name]),
    "--name",
    spec.name,
    ...ownLabels.flatMap(([k, v]) => ["--label", `${k}=${v}`]),
    ...(entry === undefined ? [] : ["--entrypoint", entry]),
    ...cliExtraArgs(c.extraArgs ?? []),
    spec.image,
    ...afterImage,
  ];
}

export function renderCommand(spec: ComposedSpec, stdin: string | Uint8Array, masker: Masker): ComposedCommand {
  const [command, ...clientArgs] = spec.container.containerCommand ?? ["docker"];
  const args = [...clientArgs, ...renderCliArgs(spec)];
  const publicNames = new Set(Object.keys(spec.container.publicEnv ?? {}));
  const env = Object.fromEntries([...effectiveEnv(spec)].filter(([name]) => !publicNames.has(name)));
  return { command: command as string, args, redactedArgs: args.map(masker.mask), env, stdin };
}
