// Removing the Run's container: by its name, so a container whose id was never learnt (a create
// whose answer was lost, an engine given up on) goes too.
// Invariant: it never throws and never waits past ENGINE_CLEANUP_TIMEOUT_MS; what it could not
// remove is logged, and sweep() removes it later by its labels.

import type { ReaderVerdict } from "../../plan/index.js";
import { engineMessage } from "../../engine/index.js";
import type { ContainerRunContext } from "./container-run-state.js";
import { ENGINE_CLEANUP_TIMEOUT_MS } from "../limits.js";
import { bounded } from "../stop.js";

export async function removeContainer<R extends ReaderVerdict>(ctx: ContainerRunContext<R>): Promise<void> {
  await bounded(ctx.engine.remove(ctx.spec.name), ENGINE_CLEANUP_TIMEOUT_MS, "remove").catch((error: unknown) => {
    ctx.logger.error({ runId: ctx.runId, err: ctx.masker.mask(engineMessage(error)) }, "container could not be removed; sweep() will remove it");
  });
}
