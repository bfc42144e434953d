// Runs the plan's reader over the agent's stdout and keeps what it decided: the stream decides,
// the container confirms. A verdict without a boolean `ok` is no verdict.
// Invariant: the reader's failure is a fact of the Run, never a throw; a reader that fails stops
// the container, and one that answered gives an agent that does not exit exitGraceMs, then kills it.

import { patientTimer } from "../../liveness/index.js";
import type { ReaderVerdict } from "../../plan/index.js";
import type { ContainerRunContext, ContainerRunState } from "./container-run-state.js";
import type { RunOutput } from "./streams.js";

export type VerdictReading = {
  /** Settles (never rejects) once the reader has returned or thrown, and stdout is detached from it. */
  readonly done: Promise<void>;
  /** Calls off the exit grace's kill, if the reader armed it. */
  readonly disarm: () => void;
};

export function readVerdict<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, state: ContainerRunState<R>, out: RunOutput): VerdictReading {
  const { plan, stop } = ctx;
  let exitGraceTimer: { readonly cancel: () => void } | undefined;
  const done = (async () => {
    try {
      state.verdict = await plan.outcome(out.stdout);
      const verdict = state.verdict;
      if (typeof verdict !== "object" || verdict === null || typeof verdict.ok !== "boolean") {
        state.readerThrew = `it returned ${JSON.stringify(verdict)?.slice(0, 200)}, which has no boolean "ok"`;
        state.verdict = undefined;
      } else if (plan.exitGraceMs !== undefined && stop.interruption() === undefined) {
        // An interrupted Run's reader ends because its output was cut, not because the agent
        // answered: the stop's own grace (stop signal, then SIGKILL) governs, not the exit grace.
        exitGraceTimer = giveTimeToExit(ctx, plan.exitGraceMs);
      }
    } catch (error) {
      state.readerThrew = error instanceof Error ? error.message : String(error);
      stop.stopContainer();
    } finally {
      out.stdout.detach();
    }
  })();
  return { done, disarm: () => exitGraceTimer?.cancel() };
}

/**
 * The agent has answered: it gets `ms` to exit on its own, stretched by the load (not a user's
 * deadline: a busy engine tells of an exit late), then it is killed; its verdict stands.
 */
function giveTimeToExit<R extends ReaderVerdict>(ctx: ContainerRunContext<R>, ms: number): { readonly cancel: () => void } {
  return patientTimer(ms, (hit) => {
    ctx.logger.info(
      { runId: ctx.runId, exitGraceMs: ms, waitedMs: hit.waitedMs },
      "the agent answered but had not exited within its exit grace; it was killed",
    );
    ctx.stop.killContainer();
  });
}
