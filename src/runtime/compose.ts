// The compose step: the declaration, the checked plan and the Run's own workspace folded into the
// one composed spec both renderings read. Staging decides the workspace mounts; the container
// folder decides everything else. Only what the Run itself added can make this fail.

import { agentWorkdirOf, composeSpec, type ComposedSpec, type ValidatedContainer } from "../container/index.js";
import { stagedMounts, type SecretFile } from "../staging/index.js";

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
};

/** Throws (a plain Error naming the clash) only when the Run's own additions clash with a declared mount. */
export function composeRun(container: ValidatedContainer, run: RunComposition): ComposedSpec {
  const agentWorkdir = agentWorkdirOf(container);
  const secretPaths = (run.secretFiles ?? []).map((file) => file.agentPath);
  return composeSpec(container, {
    runId: run.runId,
    planArgs: run.planArgs,
    ...(run.runEnv === undefined ? {} : { runEnv: run.runEnv }),
    ...(run.labels === undefined ? {} : { labels: run.labels }),
    ...(run.networks === undefined ? {} : { networks: run.networks }),
    ...(agentWorkdir === undefined ? {} : { stagedMounts: stagedMounts(run.runId, agentWorkdir, container.staging?.writableWork ?? false, secretPaths, run.sessionAgentPath) }),
  });
}
