// One spec per Run: the declaration, the Run Plan and the Run's identity folded into a single
// value that both renderings (CLI words and Engine API body) read. Pure; no I/O, no defaults elsewhere.
// The one place that decides what the container runs: a Run's timer in front of the agent's words,
// so its container ends by itself at its deadline whoever is (or is not) left to stop it.

import { type Mount, type MountSpec, type VolumeMount, mountArguments, mountSpecs, volumeMountArguments, volumeMountSpecs } from "../mounts/index.js";
import { agentWorkdirOf, type ValidatedContainer } from "./agent-container.js";
import { DEFAULT_MEMORY_BYTES, DEFAULT_PIDS_LIMIT, DEFAULT_STOP_GRACE_SECONDS, DEFAULT_TMPFS_BYTES, FALLBACK_AGENT_USER } from "./limits.js";

/** The label on every container, network and volume of a Run, holding its Run id. */
export const RUN_LABEL = "agentcage.run";
/** The label naming who owns a Run's container (the declaration's `owner`): a sweep removes only its own owner's. */
export const OWNER_LABEL = "agentcage.owner";
export const DEFAULT_OWNER = "agentcage";
/**
 * The program in the image that is a Run's own timer: coreutils' `timeout` (Debian) and busybox's
 * take the same words, `-s SIGNAL -k GRACE SECONDS COMMAND...`.
 */
export const DEADLINE_COMMAND = "timeout";

/** A container's own deadline: its agent gets the stop signal after `seconds`, SIGKILL `graceSeconds` later. */
export type ContainerDeadline = {
  readonly seconds: number;
  readonly graceSeconds: number;
  /** As the declaration names it (`--stop-signal`), default SIGTERM. */
  readonly signal: string;
};

export type ComposedSpec = {
  readonly name: string;
  readonly image: string;
  /** The declared entrypoint, whole; the CLI splits it around the image. */
  readonly entrypoint?: readonly string[];
  /** The Run Plan's words. */
  readonly planArgs: readonly string[];
  readonly user: string;
  /** The working directory as declared (or the staged workspace); extraArgs may override it. */
  readonly declaredWorkdir?: string;
  /** The working directory in effect. */
  readonly workdir?: string;
  /** Declared env, then extraArgs env, then the Run's own env, in order; later names win. */
  readonly env: ReadonlyArray<readonly [string, string]>;
  /** Names of the Run's own env, rendered as `--env NAME` after the declared ones. */
  readonly runEnvNames: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  /** The runtime's own labels for this Run (who owns it, until when), beside the run and owner labels. */
  readonly runLabels: Readonly<Record<string, string>>;
  readonly mountArgs: readonly string[];
  readonly mounts: readonly MountSpec[];
  /** Empty means `--network none`. */
  readonly networks: readonly string[];
  readonly memoryBytes: number;
  readonly pids: number;
  readonly tmpfsBytes: number;
  readonly cpus?: number;
  /** Seconds between the stop signal and SIGKILL, for every stop: ours, the engine's (StopTimeout) and the container's own timer. */
  readonly stopGraceSeconds: number;
  /** The container's own timer; absent: none (the egress proxy, which lives as long as its process). */
  readonly deadline?: ContainerDeadline;
  readonly container: ValidatedContainer;
};

/** The user an agent runs as: the declared one, else ours, else (when we are root) a fixed non-root uid. */
export function resolveAgentUser(declared: string | undefined): string {
  if (declared !== undefined) return declared;
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  if (uid === undefined || gid === undefined || uid === 0) return FALLBACK_AGENT_USER;
  return `${uid}:${gid}`;
}

export function containerName(runId: string): string {
  return `agentcage-${runId}`;
}

/** What one Run adds to the declaration. */
export type RunSpecInput = {
  readonly runId: string;
  /** The Run Plan's words. */
  readonly planArgs: readonly string[];
  /** Environment for this Run only (an agent's credential), after the declared env; default none. */
  readonly runEnv?: Readonly<Record<string, string>>;
  /**
   * The Run's own workspace mounts (its work/, out/ and secret files), relative to the Staging
   * Directory, mounted before what the Operator declared; default none. Staging decides them.
   */
  readonly stagedMounts?: readonly Mount[];
  /** The runtime's own labels for this Run (`agentcage.` names: who owns it, until when); default none. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Networks of this Run's own, instead of the declared ones (a network policy's); default: the declaration's. */
  readonly networks?: readonly string[];
  /** Volumes of this Run's own (a bounded out/), mounted after the staged and declared binds; default none. */
  readonly volumes?: readonly VolumeMount[];
  /**
   * Whole seconds after its start at which the container's own timer stops the agent (its stop
   * signal, then SIGKILL after the grace), so it ends even when the process that started it is gone;
   * default: no timer. Every Run passes one (src/runtime/run/compose.ts); the egress proxy does not.
   */
  readonly deadlineSeconds?: number;
};

export function composeSpec(container: ValidatedContainer, run: RunSpecInput): ComposedSpec {
  const { runId, planArgs } = run;
  const runEnv = run.runEnv ?? {};
  const extra = container.extra;
  const labels: Record<string, string> = {
    ...container.labels,
    ...Object.fromEntries(extra.labels),
    ...run.labels,
    [RUN_LABEL]: runId,
    [OWNER_LABEL]: container.owner ?? DEFAULT_OWNER,
  };
  const staging = container.staging;
  const mounts = {
    runtimeDir: staging?.runtimeDir ?? container.mounts?.runtimeDir ?? "/",
    entries: [...(run.stagedMounts ?? []), ...(container.mounts?.entries ?? [])],
  };
  const agentWorkdir = agentWorkdirOf(container);
  const declaredWorkdir = container.workdir ?? agentWorkdir;
  const workdir = extra.workdir ?? declaredWorkdir;
  const stopGraceSeconds = container.limits?.stopGraceSeconds ?? DEFAULT_STOP_GRACE_SECONDS;
  return {
    name: containerName(runId),
    image: container.image,
    ...(container.entrypoint === undefined ? {} : { entrypoint: container.entrypoint }),
    planArgs,
    user: resolveAgentUser(container.user),
    ...(declaredWorkdir === undefined ? {} : { declaredWorkdir }),
    ...(workdir === undefined ? {} : { workdir }),
    env: [...Object.entries(container.publicEnv ?? {}), ...Object.entries(container.env ?? {}), ...extra.env, ...Object.entries(runEnv)],
    runEnvNames: Object.keys(runEnv),
    labels,
    runLabels: { ...run.labels },
    mountArgs: [...mountArguments(mounts), ...volumeMountArguments(run.volumes ?? [])],
    mounts: [...mountSpecs(mounts), ...volumeMountSpecs(run.volumes ?? [])],
    networks: run.networks ?? container.networks ?? [],
    memoryBytes: container.limits?.memoryBytes ?? DEFAULT_MEMORY_BYTES,
    pids: container.limits?.pids ?? DEFAULT_PIDS_LIMIT,
    tmpfsBytes: container.limits?.tmpfsBytes ?? DEFAULT_TMPFS_BYTES,
    ...(container.limits?.cpus === undefined ? {} : { cpus: container.limits.cpus }),
    stopGraceSeconds,
    ...(run.deadlineSeconds === undefined
      ? {}
      : { deadline: { seconds: run.deadlineSeconds, graceSeconds: stopGraceSeconds, signal: extra.stopSignal ?? "SIGTERM" } }),
    container,
  };
}

/**
 * What the container runs, split the way both renderings split it: the entrypoint's first word when
 * one replaces the image's, and every word after the image. The timer goes in front of a declared
 * entrypoint, or else in front of the plan's words, after the image's own entrypoint, which must
 * then run its arguments as a command (none, `tini --`, a script ending in `exec "$@"`).
 */
export function commandWords(spec: ComposedSpec): { readonly entry?: string; readonly afterImage: readonly string[] } {
  const timer = spec.deadline === undefined ? [] : deadlineWords(spec.deadline);
  if (spec.entrypoint === undefined) return { afterImage: [...timer, ...spec.planArgs] };
  const [entry, ...rest] = [...timer, ...spec.entrypoint];
  return { ...(entry === undefined ? {} : { entry }), afterImage: [...rest, ...spec.planArgs] };
}

/**
 * The timer's words: the stop signal at the deadline, SIGKILL a grace later (with no grace, SIGKILL
 * at once, as a stop with no grace does). The timer stays the agent's parent (coreutils) or watches
 * it from beside it (busybox); either way the container's init passes every stop signal on.
 */
export function deadlineWords(deadline: ContainerDeadline): string[] {
  if (deadline.graceSeconds === 0) return [DEADLINE_COMMAND, "-s", "KILL", String(deadline.seconds)];
  const signal = /^\d+$/.test(deadline.signal) ? deadline.signal : deadline.signal.toUpperCase().replace(/^SIG/, "");
  return [DEADLINE_COMMAND, "-s", signal, "-k", String(deadline.graceSeconds), String(deadline.seconds)];
}

/** Mount options of the tmpfs at /tmp; one string so both renderings say the same. */
export function tmpfsOptions(spec: ComposedSpec): string {
  return `rw,nosuid,nodev,size=${spec.tmpfsBytes},mode=1777`;
}

/** Env with later names winning, as the engine would apply it. */
export function effectiveEnv(spec: ComposedSpec): Map<string, string> {
  return new Map(spec.env);
}
