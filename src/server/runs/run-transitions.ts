// How a Run moves from state to state, and how it ends: each state written to its record and told
// as an event, in the order things happened; the end is its Outcome saved, its terminal state, then
// exactly one `end` event. Invariant: a Run that has ended stays as it ended, whatever is said of it afterwards.

import { costOf, END_REASONS, type EndReason, priceOf } from "../../plan/index.js";
import { adapterFor, isAgentCli } from "../../agents/index.js";
import type { AgentOutcome } from "../../runner/index.js";
import { emit } from "./run-events.js";
import type { LifecycleType } from "./run-service-options.js";
import type { RunsBook } from "./runs-state.js";
import { releaseSession } from "./session-holds.js";
import { TERMINAL_STATES, type RunRecord, type RunState, type RunUsage } from "./store.js";

export async function setState(state: RunsBook, record: RunRecord, runState: RunState): Promise<RunRecord> {
  const current = state.records.get(record.id);
  if (current !== undefined && TERMINAL_STATES.has(current.state)) return current;
  const now = new Date().toISOString();
  const next: RunRecord = {
    ...record,
    state: runState,
    ...(runState === "starting" ? { startedAt: now } : {}),
    ...(TERMINAL_STATES.has(runState) ? { endedAt: now } : {}),
  };
  state.records.set(next.id, next);
  // Queued on the Run's event chain before anything else is: events keep the order things happened in.
  const emitted = emit(state, next.id, "state", { state: runState });
  await state.store.update(next);
  await emitted;
  if (runState === "starting") told(state, "run.started", next);
  return next;
}

export async function end(state: RunsBook, record: RunRecord, outcome: unknown, runState: RunState): Promise<void> {
  releaseSession(state, record.id);
  state.traces.delete(record.id);
  await state.store.saveOutcome(record.id, outcome);
  const usage = usageOf(outcome);
  const ended = await setState(state, { ...record, ...endOf(outcome), ...(usage === undefined ? {} : { usage }) }, runState);
  await emit(state, record.id, "end", outcome);
  told(state, "run.finished", ended);
  // Ended: the store answers for it from here on (its session's owner too, from its Outcome).
  state.records.delete(record.id);
  state.lastEventId.delete(record.id);
  state.writes.delete(record.id);
}

/** Tells whoever listens to the service's Runs' lives (the events feed, the webhooks) of one step. */
export function told(state: RunsBook, type: LifecycleType, record: RunRecord): void {
  state.options.onLifecycle?.({ type, record, at: new Date().toISOString() });
}

/** How a Run ended, as its record keeps it: its Outcome's reason and durationMs, where the Outcome has them. */
export function endOf(outcome: unknown): Pick<RunRecord, "reason" | "durationMs"> {
  const { reason, durationMs } = (outcome ?? {}) as { reason?: unknown; durationMs?: unknown };
  return {
    ...((END_REASONS as readonly unknown[]).includes(reason) ? { reason: reason as EndReason } : {}),
    ...(typeof durationMs === "number" && Number.isFinite(durationMs) && durationMs >= 0 ? { durationMs } : {}),
  };
}

/**
 * What a Run used: the proxy's meter where it metered the Run (the provider's own counts), else what
 * the CLI reported, else, for the cost, what the budget's guard counted (a Run stopped at its budget
 * often ends before its CLI says anything: without this its spend would escape the daily quota), else
 * its tokens at the price table (codex reports no cost, and a Run with no budget has no guard's count).
 */
export function usageOf(outcome: unknown): RunUsage | undefined {
  const { result, network, budget, cli } = (outcome ?? {}) as Partial<Pick<AgentOutcome, "result" | "network" | "budget" | "cli">>;
  const meter = network?.meter;
  const inputTokens = meter?.usage.inputTokens ?? result?.usage?.inputTokens;
  const outputTokens = meter?.usage.outputTokens ?? result?.usage?.outputTokens;
  const priced = () =>
    !isAgentCli(cli) || result?.usage === undefined ? undefined : costOf(result.usage, priceOf(adapterFor(cli).modelProvider, result.model).price);
  const costUsd = meter?.costUsd ?? result?.costUsd ?? budget?.used.costUsd ?? priced();
  const usage = Object.fromEntries(
    Object.entries({ inputTokens, outputTokens, costUsd }).filter(([, value]) => typeof value === "number" && Number.isFinite(value) && value >= 0),
  ) as RunUsage;
  return Object.keys(usage).length === 0 ? undefined : usage;
}

/** The state an Outcome ends its Run in. */
export function stateOf(outcome: AgentOutcome): RunState {
  return outcome.ok ? "completed" : outcome.reason === "cancelled" ? "cancelled" : "failed";
}
