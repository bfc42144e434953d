// The compose step: the declaration, the checked plan and the Run's own workspace folded into the
// one composed spec both renderings read. Staging decides the workspace mounts; the container
// folder decides everything else. Only what the Run itself added can make this fail.
// Every Run's container gets its own timer (deadlineSeconds): it ends by itself, whoever is left.

import { agentWorkdirOf, composeSpec, type ComposedSpec, type ValidatedContainer } from "../container/index.js";
import { stagedMounts, type SecretFile } from "../staging/index.js";
import { CONTAINER_DEADLINE_MARGIN_SECONDS } from "./limits.js";

export type RunComposition = {
  readonly runId: string;
  readonly planArgs: readonly string[];
  readonly runEnv?: Readonly<Record<string, string>>;
  readonly secretFiles?: readonly SecretFile[];
  /** Where the agent sees the Run's session store; default: it has none. */
  readonly sessionAgentPath?: string;
  /** Who owns the Run and until when, as labels; default none. */
  readonly labels?: Readonly<Record<string, string>>;
  /** The Run's own network, instead of the declared ones; default: the declaration's. */
  readonly networks?: readonly string[];
  /** A volume of the Run's own mounted where out/ is, instead of the Run directory's out/ (out-volume.ts); default none. */
  readonly outVolume?: string;
  /** Whole seconds from the container's start to its own timer's stop signal: every Run's container has one. */
  readonly deadlineSeconds: number;
};

/** Throws (a plain Error naming the clash) only when the Run's own additions clash with a declared mount. */
export function composeRun(container: ValidatedContainer, run: RunComposition): ComposedSpec {
  const agentWorkdir = agentWorkdirOf(container);
  const secretPaths = (run.secretFiles ?? []).map((file) => file.agentPath);
  return composeSpec(container, {
    runId: run.runId,
    planArgs: run.planArgs,
    deadlineSeconds: run.deadlineSeconds,
    ...(run.runEnv === undefined ? {} : { runEnv: run.runEnv }),
    ...(run.labels === undefined ? {} : { labels: run.labels }),
    ...(run.networks === undefined ? {} : { networks: run.networks }),
    ...(agentWorkdir === undefined ? {} : workspace(run, agentWorkdir, container.staging?.writableWork ?? false, secretPaths)),
  });
}

/** The staged binds, and out/ as the Run's own volume when it has one (then out/ is not bound from disk). */
function workspace(run: RunComposition, agentWorkdir: string, writableWork: boolean, secretPaths: readonly string[]) {
  const binds = stagedMounts(run.runId, agentWorkdir, writableWork, secretPaths, run.sessionAgentPath);
  if (run.outVolume === undefined || writableWork) return { stagedMounts: binds };
  const out = `${agentWorkdir.replace(/\/+$/, "")}/out`;
  return { stagedMounts: binds.filter((mount) => mount.agentPath !== out), volumes: [{ volume: run.outVolume, agentPath: out }] };
}

/**
 * The container's own deadline for a Run whose timeout ends `remainingMs` from now: a margin after
 * it, so that while this process lives its own timeout stops the Run first and names the end.
 */
export function containerDeadlineSeconds(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000)) + CONTAINER_DEADLINE_MARGIN_SECONDS;
}
