// The compose step: the declaration, the checked plan and the Run's own workspace folded into the
// one composed spec both renderings read. Staging decides the workspace mounts; the container
// folder decides everything else. Only what the Run itself added can make this fail.
// Every Run's container gets its own timer (deadlineSeconds): it ends by itself, whoever is left.

import { scaledMs } from "../../liveness/index.js";
import { agentWorkdirOf, composeSpec, type ComposedSpec, type ValidatedContainer } from "../../container/index.js";
import { stagedMounts, type SecretFile } from "../../staging/index.js";
import { CONTAINER_DEADLINE_MARGIN_SECONDS, ENGINE_ANSWER_MARGIN_MS, OUT_COPY_TIMEOUT_MS } from "../limits.js";

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
  /**
   * Volumes of the Run's own (out-volume.ts) mounted instead of the Run directory's places: `out` where
   * out/ is (a read-only work/), `work` where the writable work/ is, `session` where the session store is,
   * `inputs` read-only where the read-only work/ is (runFiles "engine"); default none.
   */
  readonly volumes?: { readonly out?: string; readonly work?: string; readonly session?: string; readonly inputs?: string };
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

/** The staged binds, each place that is a volume of the Run's own mounted from it instead (and not bound from disk). */
function workspace(run: RunComposition, agentWorkdir: string, writableWork: boolean, secretPaths: readonly string[]) {
  const binds = stagedMounts(run.runId, agentWorkdir, writableWork, secretPaths, run.sessionAgentPath);
  const given = run.volumes ?? {};
  const volumes: Array<{ readonly volume: string; readonly agentPath: string; readonly readOnly?: boolean }> = [];
  if (writableWork && given.work !== undefined) volumes.push({ volume: given.work, agentPath: agentWorkdir });
  // Before out/: the engine mounts out/'s volume over the (empty) out/ the inputs' volume holds.
  if (!writableWork && given.inputs !== undefined) volumes.push({ volume: given.inputs, agentPath: agentWorkdir, readOnly: true });
  if (!writableWork && given.out !== undefined) volumes.push({ volume: given.out, agentPath: `${agentWorkdir.replace(/\/+$/, "")}/out` });
  if (run.sessionAgentPath !== undefined && given.session !== undefined) volumes.push({ volume: given.session, agentPath: run.sessionAgentPath });
  if (volumes.length === 0) return { stagedMounts: binds };
  const replaced = new Set(volumes.map((v) => v.agentPath));
  return { stagedMounts: binds.filter((mount) => !replaced.has(mount.agentPath)), volumes };
}

/**
 * The container's own deadline for a Run whose timeout ends `remainingMs` from now: a margin after
 * it, so that while this process lives its own timeout stops the Run first and names the end.
 */
export function containerDeadlineSeconds(remainingMs: number): number {
  return Math.max(1, Math.ceil(remainingMs / 1000)) + CONTAINER_DEADLINE_MARGIN_SECONDS;
}

/**
 * How long a Pod's holder lives: past the agent's own timer (`deadlineSeconds`), the stop's grace
 * and its copy-back (those two not a user's: stretched by the load as it is now); the Pod's deletion ends it first.
 */
export function holderSecondsAfter(deadlineSeconds: number, graceMs: number): number {
  return deadlineSeconds + Math.ceil((graceMs + scaledMs(ENGINE_ANSWER_MARGIN_MS + OUT_COPY_TIMEOUT_MS)) / 1000);
}
