// The one screen the command prints when a Run ends: how it ended and why, how long it took, its
// turns, tokens and cost, the tools it called, where its work went, and how to resume it.
// One token count and one cost per Run, each from one source, named: the egress proxy's meter
// when there is one (the provider's own counts), else the CLI's; a cost the price table gave is said so,
// and a stand-in Run's cost is said to be not real.

import { type Progress, formatBudget, formatCost, formatSeconds, formatUsage, printable } from "./progress.js";
import { inCommandWords } from "./options.js";
import { costOf, priceOf } from "../plan/index.js";
import { adapterFor, isAgentCli } from "../agents/index.js";

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
  /** The stand-in model answered: its usage, and any cost priced from it, are made up. */
  readonly standIn?: boolean;
  /** The Run's network policy, and under the egress proxy what it metered. */
  readonly network?: {
    readonly policy: string;
    readonly meter?: {
      readonly turns: number;
      readonly refused: number;
      readonly costUsd: number;
      /** "dearest_price": some answer's model was not in the price table, and was priced at the CLI's dearest entry. */
      readonly costFrom?: string;
      readonly usage: NonNullable<Progress["usage"]>;
    };
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
  const spent = spentOf(outcome, progress);
  const turns = r?.numTurns ?? progress.turns;
  const numbers = [turns === undefined ? undefined : `${turns} turn${turns === 1 ? "" : "s"}`, formatUsage(spent.usage), spent.cost].filter(
    (part) => part !== undefined,
  );
  if (numbers.length > 0) lines.push(`  ${numbers.join(" · ")}${spent.usage === undefined && spent.cost === undefined ? "" : ` · ${paint.dim(spent.from)}`}`);
  const caps = outcome.budget ?? progress.budget;
  // What the budget line says was spent is the same count as above, not a second one.
  const budget = formatBudget(
    caps === undefined || spent.tokens === undefined
      ? caps
      : { caps: caps.caps, used: { ...caps.used, tokens: spent.tokens, ...(spent.costUsd === undefined ? {} : { costUsd: spent.costUsd }) } },
  );
  if (budget !== undefined) lines.push(`  ${outcome.budget?.exceeded === undefined ? budget : paint.yellow(`${budget} (passed ${outcome.budget.exceeded})`)}`);
  const network = outcome.network;
  if (network !== undefined && network.policy !== "none" && network.policy !== "declared") {
    const meter = network.meter;
    const metered =
      meter === undefined
        ? ""
        : `: ${meter.turns} model call${meter.turns === 1 ? "" : "s"} through the egress proxy${meter.refused > 0 ? `, ${meter.refused} refused` : ""}`;
    lines.push(`  ${paint.dim(`network ${network.policy}${metered}`)}`);
  }
  if (progress.toolCalls > 0) {
    lines.push(
      `  ${progress.toolCalls} tool call${progress.toolCalls === 1 ? "" : "s"}: ${[...progress.tools].map(([name, count]) => (count === 1 ? name : `${name} ×${count}`)).join(", ")}`,
    );
  }
  for (const line of work) lines.push(`  ${line}`);
  const session = r?.sessionId ?? progress.sessionId;
  if (outcome.session?.kept === true)
    lines.push(`  ${paint.dim(`session ${outcome.session.id ?? session} (continue it: --resume ${outcome.session.id ?? session})`)}`);
  else if (session !== undefined) lines.push(`  ${paint.dim(`session ${session}`)}`);
  if (outcome.runId !== undefined) lines.push(`  ${paint.dim(`run ${outcome.runId}`)}`);
  return lines;
}

/** The Run's one token count and one cost, and where they came from. */
function spentOf(
  outcome: SummaryOutcome,
  progress: Progress,
): { usage?: NonNullable<Progress["usage"]>; tokens?: number; costUsd?: number; cost?: string; from: string } {
  const meter = outcome.network?.meter;
  if (meter !== undefined) {
    return {
      usage: meter.usage,
      tokens: meter.usage.inputTokens + meter.usage.outputTokens,
      costUsd: meter.costUsd,
      cost: costWords(meter.costUsd, meter.costFrom ?? "price_table", true, outcome.standIn === true),
      from: "from the egress proxy's meter",
    };
  }
  const cli = outcome.cli ?? progress.cli;
  const usage = outcome.result?.usage ?? progress.usage;
  const used = (outcome.budget ?? progress.budget)?.used;
  // The CLI's own cost first (claude, at its end); else the budget's, priced from the CLI's tokens;
  // else (no budget: codex reports no cost) its tokens priced here, at the same table.
  const [costUsd, costFrom] =
    outcome.result?.costUsd !== undefined
      ? [outcome.result.costUsd, "cli"]
      : used?.costUsd !== undefined
        ? [used.costUsd, used.costFrom ?? "price_table"]
        : progress.costUsd !== undefined
          ? [progress.costUsd, "cli"]
          : pricedAtTable(cli, outcome.result?.model, outcome.result?.usage);
  return {
    ...(usage === undefined ? {} : { usage, tokens: usage.inputTokens + usage.outputTokens }),
    ...(costUsd === undefined ? {} : { costUsd, cost: costWords(costUsd, costFrom, false, outcome.standIn === true) }),
    from: `from ${cli}'s own output`,
  };
}

/** The tokens at the price table, as the budget's meter prices them; nothing when the CLI or the tokens are unknown. */
function pricedAtTable(cli: string | undefined, model: string | undefined, usage: Progress["usage"]): [number | undefined, string] {
  if (!isAgentCli(cli) || usage === undefined) return [undefined, "cli"];
  const { price, known } = priceOf(adapterFor(cli).modelProvider, model);
  return [costOf(usage, price), known ? "price_table" : "dearest_price"];
}

/** `$0.0123`, and how it was priced when nobody billed it: from the table, estimated at the dearest entry, or from the stand-in's made-up usage. */
function costWords(costUsd: number, costFrom: string, metered: boolean, standIn: boolean): string {
  const cost = formatCost(costUsd);
  const priced =
    costFrom === "dearest_price"
      ? `${cost} estimated (its model is not in the price table: priced at the dearest entry)`
      : costFrom === "price_table" && !metered
        ? `${cost} priced from the table`
        : cost;
  return standIn ? `${priced}, not real (the stand-in model's made-up usage)` : priced;
}

function firstLines(text: string, count: number): string {
  const lines = printable(text).split("\n");
  return lines.length <= count ? text : `${lines.slice(0, count).join("\n  ")}\n  …`;
}
