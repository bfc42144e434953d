// The one screen the command prints when a Run ends: how it ended and why, how long it took, its
// turns, tokens and cost, the tools it called, where its work went, and how to resume it.

import type { Progress } from "./progress.js";
import { formatBudget, formatCost, formatSeconds, formatUsage, printable } from "./progress.js";
import { inCommandWords } from "./options.js";

/** What a summary needs of an Outcome (the library's, or one the service sent as JSON). */
export type SummaryOutcome = {
  readonly ok: boolean;
  readonly reason: string;
  readonly runId?: string;
  readonly error?: string;
  readonly durationMs?: number;
  readonly queuedMs?: number;
  readonly cli?: string;
  readonly credential?: string;
  /** Whether the Run's session was kept to be resumed (a runner with sessions on). */
  readonly session?: { readonly id?: string; readonly kept: boolean };
  readonly budget?: Progress["budget"] & { readonly exceeded?: string };
  /** The Run's network policy, and under the egress proxy what it metered. */
  readonly network?: {
    readonly policy: string;
    readonly meter?: { readonly turns: number; readonly refused: number; readonly costUsd: number; readonly usage: NonNullable<Progress["usage"]> };
  };
  readonly result?: {
    readonly reason?: string;
    readonly model?: string;
    readonly sessionId?: string;
    readonly numTurns?: number;
    readonly costUsd?: number;
    readonly usage?: Progress["usage"];
  };
};

export type Paint = {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly green: (text: string) => string;
  readonly red: (text: string) => string;
  readonly yellow: (text: string) => string;
};

export const NO_PAINT: Paint = { bold: (t) => t, dim: (t) => t, green: (t) => t, red: (t) => t, yellow: (t) => t };

/** Lines about where the Run's work went, told by whoever harvested it. */
export type WorkNote = readonly string[];

export function summaryLines(outcome: SummaryOutcome, progress: Progress, work: WorkNote, paint: Paint): string[] {
  const r = outcome.result;
  const took = formatSeconds(outcome.durationMs ?? Date.now() - progress.startedAt);
  const waited = (outcome.queuedMs ?? 0) >= 1000 ? `, after ${formatSeconds(outcome.queuedMs ?? 0)} waiting for a slot` : "";
  const model = r?.model ?? progress.model;
  const head = outcome.ok
    ? `${paint.green("✔")} ${paint.bold("completed")} in ${took}${waited}`
    : `${paint.red("✖")} ${paint.bold(outcome.reason)}${r?.reason !== undefined && r.reason !== outcome.reason && r.reason !== "completed" ? ` (${r.reason})` : ""} after ${took}${waited}`;
  const lines = [`${head} ${paint.dim(`· ${outcome.cli ?? progress.cli}${model === undefined ? "" : ` · ${model}`}`)}`];
  if (!outcome.ok && outcome.error !== undefined) lines.push(`  ${paint.red(firstLines(inCommandWords(outcome.error), 3))}`);
  const usage = formatUsage(r?.usage ?? progress.usage);
  const cost = formatCost(r?.costUsd ?? progress.costUsd);
  const turns = r?.numTurns ?? progress.turns;
  const numbers = [turns === undefined ? undefined : `${turns} turn${turns === 1 ? "" : "s"}`, usage, cost].filter((part) => part !== undefined);
  if (numbers.length > 0) lines.push(`  ${numbers.join(" · ")}`);
  const budget = formatBudget(outcome.budget ?? progress.budget);
  if (budget !== undefined) lines.push(`  ${outcome.budget?.exceeded === undefined ? budget : paint.yellow(`${budget} (passed ${outcome.budget.exceeded})`)}`);
  const network = outcome.network;
  if (network !== undefined && network.policy !== "none" && network.policy !== "declared") {
    const meter = network.meter;
    const metered =
      meter === undefined
        ? ""
        : `: the egress proxy metered ${meter.turns} model call${meter.turns === 1 ? "" : "s"} · ${formatUsage(meter.usage) ?? "no tokens"} · ${formatCost(meter.costUsd) ?? "$0"}${meter.refused > 0 ? ` · ${meter.refused} refused` : ""}`;
    lines.push(`  ${paint.dim(`network ${network.policy}${metered}`)}`);
  }
  if (progress.toolCalls > 0) {
    lines.push(`  ${progress.toolCalls} tool call${progress.toolCalls === 1 ? "" : "s"}: ${[...progress.tools].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(", ")}`);
  }
  for (const line of work) lines.push(`  ${line}`);
  const session = r?.sessionId ?? progress.sessionId;
  if (outcome.session?.kept === true) lines.push(`  ${paint.dim(`session ${outcome.session.id ?? session} (continue it: --resume ${outcome.session.id ?? session})`)}`);
  else if (session !== undefined) lines.push(`  ${paint.dim(`session ${session}`)}`);
  if (outcome.runId !== undefined) lines.push(`  ${paint.dim(`run ${outcome.runId}`)}`);
  return lines;
}

function firstLines(text: string, count: number): string {
  const lines = printable(text).split("\n");
  return lines.length <= count ? text : `${lines.slice(0, count).join("\n  ")}\n  …`;
}
