// What the command knows of a Run while it goes, folded from the agent's typed events: the tool
// calls so far, the last thing the agent said, tokens, cost and turns. Pure: both views (the live
// one on a terminal, the plain lines elsewhere) and the summary read it.

import type { AgentBudget, AgentEvent, AgentUsage, BudgetUse } from "../agents/index.js";
import { BIDI_CLASS } from "../staging/index.js";

export type Progress = {
  readonly cli: string;
  readonly startedAt: number;
  readonly model?: string;
  readonly sessionId?: string;
  /** Each tool's name with how often it was called, in the order first called. */
  readonly tools: ReadonlyMap<string, number>;
  readonly toolCalls: number;
  readonly lastToolCall?: string;
  readonly lastText?: string;
  readonly usage?: AgentUsage;
  readonly costUsd?: number;
  /** Whether usage and cost are the egress proxy's meter (the provider's own counts); once they are, the CLI's own counts no longer replace them. */
  readonly metered?: boolean;
  readonly turns?: number;
  /** Where the Run is: "starting", then "running" once the agent spoke, then its end. */
  readonly phase: string;
  /** The latest budget event: what was spent against which caps. */
  readonly budget?: { readonly used: BudgetUse; readonly caps: AgentBudget };
  /** Set by a stall warning, cleared by the next event. */
  readonly quietSeconds?: number;
};

export function startProgress(cli: string, startedAt: number): Progress {
  return { cli, startedAt, tools: new Map(), toolCalls: 0, phase: "starting" };
}

/** The progress after one more event. */
export function applyEvent(progress: Progress, event: AgentEvent): Progress {
  const { quietSeconds: _quiet, ...rest } = progress;
  const running = { ...rest, phase: "running" };
  switch (event.type) {
    case "init":
      return {
        ...running,
        ...(event.model === undefined ? {} : { model: event.model }),
        ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
      };
    case "assistant_text":
      return event.text.trim() === "" ? running : { ...running, lastText: event.text.trim() };
    case "tool_call": {
      const tools = new Map(progress.tools);
      tools.set(event.name, (tools.get(event.name) ?? 0) + 1);
      return { ...running, tools, toolCalls: progress.toolCalls + 1, lastToolCall: describeToolCall(event.name, event.input) };
    }
    case "usage":
      // Each usage event is the total so far.
      return progress.metered === true ? running : { ...running, usage: event.usage };
    case "metered":
      return { ...running, usage: event.usage, costUsd: event.costUsd, metered: true };
    case "budget":
      return {
        ...running,
        budget: { used: event.used, caps: event.caps },
        ...(event.used.costUsd === undefined || progress.costUsd !== undefined ? {} : { costUsd: event.used.costUsd }),
      };
    case "stall_warning":
      return { ...progress, quietSeconds: event.silentSeconds };
    case "result": {
      const r = event.result;
      return {
        ...running,
        ...(r.usage === undefined || progress.metered === true ? {} : { usage: r.usage }),
        ...(r.costUsd === undefined || progress.metered === true ? {} : { costUsd: r.costUsd }),
        ...(r.numTurns === undefined ? {} : { turns: r.numTurns }),
        ...(r.sessionId === undefined ? {} : { sessionId: r.sessionId }),
        ...(r.model === undefined ? {} : { model: r.model }),
      };
    }
    default:
      return running;
  }
}

/** The argument of a tool call that says what it does: a command, a path, a pattern; else its JSON. */
const TELLING_FIELDS = ["command", "cmd", "file_path", "path", "pattern", "url", "query", "description"] as const;

/** `Bash: npm test`, `Write: out/answer.txt`, or the tool's name and its input as JSON, on one line. */
export function describeToolCall(name: string, input: unknown): string {
  if (typeof input === "object" && input !== null) {
    const fields = input as Record<string, unknown>;
    for (const field of TELLING_FIELDS) {
      const value = fields[field];
      if (typeof value === "string" && value !== "") return `${name}: ${oneLine(value)}`;
      if (Array.isArray(value) && value.every((part) => typeof part === "string")) return `${name}: ${oneLine(value.join(" "))}`;
    }
    const json = JSON.stringify(input);
    return json === "{}" ? name : `${name}: ${oneLine(json)}`;
  }
  return input === undefined ? name : `${name}: ${oneLine(String(input))}`;
}

/** Whitespace runs (newlines included) as one space, and no control character left to act on a terminal. */
export function oneLine(text: string): string {
  return printable(text.replace(/\s+/g, " ").trim());
}

// C0 controls but tab and newline, DEL, and C1 controls: an agent that prints an escape sequence
// (it reads untrusted input) must not move the cursor, retitle the window or hide text on the
// terminal of the person watching it. Each is shown as its \x escape instead. The bidi controls
// and marks would reorder what the person reads (the "Trojan Source" class): each is shown as
// \u{202e}, as the console shows it; which they are is the change set's own list (BIDI_CLASS).
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const BIDI = new RegExp(`[${BIDI_CLASS}]`, "g");

/** The text with every terminal control character written out as `\xNN`, every bidi control as `\u{NNNN}`. */
export function printable(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`).replace(BIDI, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** At most `width` characters, with an ellipsis where it was cut. */
export function shorten(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(1, width - 1)).join("")}…`;
}

/** 1.2 s, 12 s, 2 min 5 s. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/** `1,234 in / 56 out tokens`, with the cached ones when there were any. */
export function formatUsage(usage: AgentUsage | undefined): string | undefined {
  if (usage === undefined) return undefined;
  const n = (value: number) => value.toLocaleString("en-US");
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens > 0 ? ` (cache ${n(usage.cacheReadTokens)} read, ${n(usage.cacheWriteTokens)} written)` : "";
  return `${n(usage.inputTokens)} in / ${n(usage.outputTokens)} out tokens${cached}`;
}

export function formatCost(costUsd: number): string;
export function formatCost(costUsd: number | undefined): string | undefined;
export function formatCost(costUsd: number | undefined): string | undefined {
  return costUsd === undefined ? undefined : `$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`;
}

/** The caps a budget event names, each as spent/limit: `tokens 1,234/10,000 · $0.0123/$0.50`. */
export function formatBudget(budget: Progress["budget"]): string | undefined {
  if (budget === undefined) return undefined;
  const { used, caps } = budget;
  const n = (value: number) => value.toLocaleString("en-US");
  const parts = [
    caps.maxTurns === undefined ? undefined : `turns ${used.turns}/${caps.maxTurns}`,
    caps.maxTokens === undefined ? undefined : `tokens ${n(used.tokens)}/${n(caps.maxTokens)}`,
    caps.maxCostUsd === undefined ? undefined : `${formatCost(used.costUsd ?? 0)}/${formatCost(caps.maxCostUsd)}`,
    caps.maxWallSeconds === undefined ? undefined : `${used.wallSeconds}/${caps.maxWallSeconds} s`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? undefined : `budget ${parts.join(", ")}`;
}
