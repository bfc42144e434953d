// A Run's live guards, as the runner wires them: the budget meter fed from every event (a breach
// aborts the Run's signal with an EarlyEnd, so it ends budget_exceeded), `budget` events at most
// once a second, the wall-clock cap on a timer, and what the Outcome of a stopped Run keeps: the
// answer so far, the usage so far, the session, and the last event it printed (for a stalled Run).
// Invariant: a Run whose request set no budget shows one (a `budget` event, `outcome.budget`) only
// once a cap held for it anyway (codex's maxTurns) is passed.

import { EarlyEnd } from "../runtime/index.js";
import {
  adapterFor,
  createBudgetMeter,
  type BudgetMeter,
  type AgentRequest,
  type AgentBudget,
  type AgentEvent,
  type AgentResult,
  type BudgetCap,
  type BudgetUse,
} from "../agents/index.js";

/** Between two `budget` events. */
const BUDGET_EVENT_INTERVAL_MS = 1000;

/** What the Outcome says of the budget: the caps, what was spent, and the cap passed, if one was. */
export type BudgetReport = { readonly caps: AgentBudget; readonly used: BudgetUse; readonly exceeded?: BudgetCap };

export type RunGuard = {
  /** The Run's signal: the caller's, and the guard's own. */
  readonly signal: AbortSignal;
  /** Takes each event the agent printed; returns the events to deliver after it (a `budget` event). */
  readonly watch: (event: AgentEvent) => AgentEvent[];
  /** The last event the agent printed, in a few words. */
  readonly lastEvent: () => string | undefined;
  /** Whether the agent printed its terminal record (its answer, or its failure): from then on nothing it waits on can end it unavailable. */
  readonly answered: () => boolean;
  /**
   * The Run's end reason (a CLI that stopped itself at its own cap, claude's --max-budget-usd, is
   * budget_exceeded too), the budget report, and a stopped Run's result completed with what was seen.
   */
  readonly finish: <R extends string>(
    reason: R,
    result: AgentResult | undefined,
  ) => { readonly reason: R | "budget_exceeded"; readonly budget?: BudgetReport; readonly result?: AgentResult };
  /** Ends the Run as budget_exceeded for a cap passed elsewhere (the egress proxy's meter). */
  readonly exceededAtSource: (cap: BudgetCap, message: string) => void;
  /** Ends the Run as unavailable: something it cannot go on without went away (the egress proxy). */
  readonly unavailable: (message: string) => void;
  readonly dispose: () => void;
};

export function createRunGuard(request: AgentRequest, callerSignal: AbortSignal | undefined, now: () => number = Date.now): RunGuard {
  const own = new AbortController();
  const signal = callerSignal === undefined ? own.signal : AbortSignal.any([callerSignal, own.signal]);
  const caps = capsOf(request);
  // codex's maxTurns is held by the meter whether or not a budget was asked; it is reported only with one (or once passed).
  const asked = request.budget !== undefined && Object.values(request.budget).some((value) => value !== undefined);
  const meter: BudgetMeter | undefined = caps === undefined ? undefined : createBudgetMeter(request.cli, caps, now(), request.model);
  let exceeded: BudgetCap | undefined;
  let lastBudgetEventAt = Number.NEGATIVE_INFINITY;
  let last: string | undefined;
  let answered = false;

  const breach = (found: ReturnType<BudgetMeter["observe"]>): boolean => {
    if (found === undefined || own.signal.aborted) return false;
    exceeded = found.cap;
    own.abort(new EarlyEnd("budget_exceeded", found.message));
    return true;
  };
  const wall = caps?.maxWallSeconds === undefined ? undefined : setTimeout(() => breach(meter?.tick(now() + 1000)), caps.maxWallSeconds * 1000 + 1000);
  wall?.unref();

  return {
    signal,
    watch: (event) => {
      last = describeEvent(event) ?? last;
      if (event.type === "result") answered = true;
      if (meter === undefined || caps === undefined) return [];
      const passed = breach(meter.observe(event, now()));
      const at = now();
      if (!passed && (!asked || at - lastBudgetEventAt < BUDGET_EVENT_INTERVAL_MS)) return [];
      lastBudgetEventAt = at;
      return [{ type: "budget", used: meter.used(at), caps }];
    },
    lastEvent: () => last,
    answered: () => answered,
    finish: (ended, result) => {
      const atOwnCap = ended === "failed" && result?.reason === "budget_exceeded";
      const reason = atOwnCap ? ("budget_exceeded" as const) : ended;
      if (atOwnCap && exceeded === undefined) exceeded = "maxCostUsd";
      if (meter === undefined || caps === undefined) return { reason, ...(result === undefined ? {} : { result }) };
      const reported = asked || exceeded !== undefined;
      const budget = reported ? { budget: { caps, used: meter.used(now()), ...(exceeded === undefined ? {} : { exceeded }) } satisfies BudgetReport } : {};
      if (reason !== "budget_exceeded" && reason !== "stalled") return { reason, ...budget, ...(result === undefined ? {} : { result }) };
      // Stopped: whatever the reader made of a cut stream, the answer, usage and session seen so far stay.
      const partial = meter.partial();
      const base: AgentResult = result ?? { ok: false, reason: "no_result", error: "the agent was stopped before it printed its result" };
      return {
        reason,
        ...budget,
        result: {
          ...base,
          ...(base.text === undefined && partial.text !== undefined ? { text: partial.text } : {}),
          ...(base.usage === undefined && partial.usage !== undefined ? { usage: partial.usage } : {}),
          ...(base.sessionId === undefined && partial.sessionId !== undefined ? { sessionId: partial.sessionId } : {}),
        },
      };
    },
    exceededAtSource: (cap, message) => {
      if (own.signal.aborted) return;
      exceeded = cap;
      own.abort(new EarlyEnd("budget_exceeded", message));
    },
    unavailable: (message) => {
      if (own.signal.aborted) return;
      own.abort(new EarlyEnd("unavailable", message));
    },
    dispose: () => clearTimeout(wall),
  };
}

/**
 * The caps the request set, and only those (a zod object keeps an unset cap as undefined). codex has
 * no turn limit of its own, so its request's maxTurns (0: none) is held here, from its stream, as a
 * budget's maxTurns: the lower of the two wins. A CLI whose adapter holdsMaxTurns (claude's
 * --max-turns) holds it itself.
 */
export function capsOf(request: AgentRequest): AgentBudget | undefined {
  const set =
    request.budget === undefined ? {} : (Object.fromEntries(Object.entries(request.budget).filter(([, value]) => value !== undefined)) as AgentBudget);
  const turns =
    !adapterFor(request.cli).holdsMaxTurns && request.maxTurns > 0 ? Math.min(request.maxTurns, set.maxTurns ?? Number.POSITIVE_INFINITY) : set.maxTurns;
  const caps: AgentBudget = { ...set, ...(turns === undefined ? {} : { maxTurns: turns }) };
  return Object.keys(caps).length === 0 ? undefined : caps;
}

/** `tool_call Bash`, `assistant_text "…"`: enough to say where a stalled agent stopped. */
function describeEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "tool_call":
      return `tool_call ${event.name}`;
    case "tool_result":
      return `tool_result${event.isError ? " (an error)" : ""}`;
    case "assistant_text":
      return `assistant_text ${JSON.stringify(event.text.length > 80 ? `${event.text.slice(0, 79)}…` : event.text)}`;
    case "init":
    case "turn":
    case "error":
      return event.type;
    default:
      return undefined;
  }
}
