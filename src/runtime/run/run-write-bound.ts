// What the bound on the agent's writes says of a staged Run once its container is gone: a writable
// place it filled ends the Run as write_limit, a place its volume could not give back refuses the
// Harvest, and the bound itself is released with the Run.
// Invariant: a full place overrides whatever the reader said; a release that fails is logged, never the Outcome's.

import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import { DEFAULT_WRITABLE_BYTES, releaseWritable, stagingLimits, writableFull, type RunDirectory } from "../../staging/index.js";
import { maskedMessage, type RunContext, type StepState } from "./run-state.js";

const { MAX_WRITABLE_ENTRIES } = stagingLimits;

/** Where the agent may write: all of work/ when it is writable, else out/. */
function writablePath<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, directory: RunDirectory): string {
  return ctx.container.staging?.writableWork === true ? directory.work : directory.out;
}

/** An agent that filled its bound had writes fail: whatever its reader said, the Run ends as write_limit. */
export async function checkWriteBound<R extends ReaderVerdict, Q>(
  ctx: RunContext<R, Q>,
  state: StepState,
  directory: RunDirectory,
  outcome: Outcome<R>,
): Promise<Outcome<R>> {
  if (outcome.exit === undefined) return outcome;
  const full = ctx.writeBound === "mount" ? await writableFull(writablePath(ctx, directory)).catch(() => false) : state.collectedOut?.full === true;
  if (!full) return outcome;
  const limit = ctx.container.staging?.writableBytes ?? DEFAULT_WRITABLE_BYTES;
  const error = `the agent filled what it may write, ${limit} bytes (staging.writableBytes) or ${MAX_WRITABLE_ENTRIES} files, and its writes past it failed; raise staging.writableBytes or have it write less`;
  return { ...outcome, ok: false, reason: "write_limit", error: outcome.error === undefined ? error : `${error}; ${outcome.error}` };
}

/**
 * What the agent left in its out/ (or work/) volume could not be copied back (a link, a device): a Run that
 * would be harvested is refused as the Harvest refuses; otherwise it is said in the log.
 */
export function refuseOutCopy<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, state: StepState, outcome: Outcome<R>): Outcome<R> {
  const refusal = state.collectedOut?.refusal;
  if (refusal === undefined) return outcome;
  const { runId, masker } = ctx;
  if (ctx.harvestTo === undefined || outcome.reason !== "completed") {
    ctx.logger.warn({ runId, refusal: masker.maskDeep(refusal) }, "what the agent left in its writable volume was not copied back");
    return outcome;
  }
  return { ...outcome, ok: false, reason: "harvest_refused", error: masker.mask(refusal.message), harvest: masker.maskDeep({ ok: false, refusal }) };
}

/** The bound on what the agent wrote ends with the Run; a kept record keeps what it wrote, on disk. */
export async function releaseWriteBound<R extends ReaderVerdict, Q>(ctx: RunContext<R, Q>, directory: RunDirectory, keep: boolean): Promise<void> {
  await releaseWritable(directory.root, writablePath(ctx, directory), keep).catch((error: unknown) => {
    ctx.logger.error({ runId: ctx.runId, err: maskedMessage(ctx, error) }, "the Run's writable tmpfs could not be released");
  });
}
