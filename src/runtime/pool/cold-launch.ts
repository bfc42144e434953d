// A cold Run given tmpfs secrets runs the pool's launcher too, claimed at once: its container is the
// Run's own (name, labels, mounts, network) but created with the launcher's words and without the
// declaration's secret environment, and the claim (`run`, the Run's timer, words, environment and
// tmpfs secrets) goes first on its stdin. So the argv and environment its agent runs with are a warm
// Run's, and no secret is in its create body. Invariant: the timer the claim carries is the one the
// Run's own spec would have put in its argv.

import type { ComposedSpec } from "../../container/index.js";
import { scaledMs } from "../../liveness/index.js";
import { CLAIM_WAIT_SECONDS } from "../limits.js";
import { encodeClaim, launcherWords } from "./pool-launcher.js";

/** The container to create for the Run, and the bytes its stdin starts with. */
export type ColdLaunch = { readonly spec: ComposedSpec; readonly claim: Uint8Array };

/** The launcher's spec and claim for a Run with tmpfs secrets; undefined without any (the plan's words run as they are). Throws only for a value a claim cannot carry (a NUL). */
export function coldLaunchOf(runSpec: ComposedSpec, tmpfsSecrets: Readonly<Record<string, string>>): ColdLaunch | undefined {
  const secrets = Object.entries(tmpfsSecrets);
  if (secrets.length === 0) return undefined;
  const { deadline, ...rest } = runSpec;
  const claim = encodeClaim({ mode: "run", ...(deadline === undefined ? {} : { deadline }), words: runSpec.planArgs, env: runSpec.env, secrets });
  // Only the public environment is in the create body: the rest, secret, comes in the claim.
  // Its wait for the claim is not a user's deadline: stretched by the load as the container is made.
  const claimWaitSeconds = Math.ceil(scaledMs(CLAIM_WAIT_SECONDS * 1000) / 1000);
  const spec: ComposedSpec = { ...rest, planArgs: launcherWords(claimWaitSeconds), env: Object.entries(runSpec.container.publicEnv ?? {}), runEnvNames: [] };
  return { spec, claim };
}
