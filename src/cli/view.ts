// How a Run is shown while it goes, on stderr (stdout is kept for the answer, or the JSON). On a
// terminal (and without NO_COLOR or CI) a live view redraws in place with a spinner (ora) and
// colour (picocolors); anywhere else, one plain line per event with no escape codes at all.

import ora from "ora";
import { createColors } from "picocolors";
import type { AgentEvent } from "../agents/index.js";
import { applyEvent, formatBudget, formatCost, formatSeconds, formatUsage, oneLine, shorten, startProgress, type Progress } from "./progress.js";
import { NO_PAINT, summaryLines, type Paint, type SummaryOutcome, type WorkNote } from "./summary.js";

export type RunView = {
  /** One more event of the agent's. */
  readonly event: (event: AgentEvent) => void;
  /** Something the command itself has to say (queued, reconnecting, cancelling). */
  readonly note: (text: string) => void;
  /** Stops redrawing and prints the summary. */
  readonly end: (outcome: SummaryOutcome, work: WorkNote) => void;
  readonly progress: () => Progress;
};

export type ViewStream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };

/**
 * Live only on a terminal that has a size (a pseudo-terminal nobody sized has 0 columns, and a
 * redraw there cannot know what to clear), and never with NO_COLOR or CI set (to anything but empty).
 */
export function wantsLiveView(stream: ViewStream, env: Readonly<Record<string, string | undefined>>): boolean {
  const set = (name: string) => (env[name] ?? "") !== "";
  return stream.isTTY === true && (stream.columns ?? 0) > 0 && !set("NO_COLOR") && !set("CI") && env["TERM"] !== "dumb";
}

export function createRunView(cli: string, stream: ViewStream, live: boolean, now: () => number = Date.now): RunView {
  return live ? liveView(cli, stream, now) : plainView(cli, stream, now);
}

function plainView(cli: string, stream: ViewStream, now: () => number): RunView {
  let progress = startProgress(cli, now());
  let lastNote: string | undefined;
  const say = (text: string) => stream.write(`[${formatSeconds(now() - progress.startedAt).padStart(8)}] ${text}\n`);
  return {
    progress: () => progress,
    // A note said again (a state replayed after a reconnect) is not news.
    note: (text) => {
      if (text !== lastNote) say(text);
      lastNote = text;
    },
    event: (event) => {
      progress = applyEvent(progress, event);
      const line = plainLine(event, progress);
      if (line !== undefined) say(line);
    },
    end: (outcome, work) => {
      for (const line of summaryLines(outcome, progress, work, NO_PAINT)) stream.write(`${line}\n`);
    },
  };
}

function plainLine(event: AgentEvent, progress: Progress): string | undefined {
  switch (event.type) {
    case "init":
      return `${progress.cli} started${event.model === undefined ? "" : ` (${event.model})`}`;
    case "tool_call":
      return `tool ${shorten(progress.lastToolCall ?? event.name, 200)}`;
    case "tool_result":
      return event.isError ? `tool failed${event.text === undefined ? "" : `: ${shorten(oneLine(event.text), 200)}`}` : undefined;
    case "assistant_text":
      return event.text.trim() === "" ? undefined : `says ${shorten(oneLine(event.text), 200)}`;
    case "egress_slow":
      return `the egress proxy is slow: no answer from it for ${event.waitedSeconds} s; it runs, so the Run waits for it`;
    case "stall_warning":
      return `quiet for ${event.silentSeconds} s, no CPU used: stopped as stalled at ${event.stallSeconds} s${event.lastEvent === undefined ? "" : ` (last: ${shorten(oneLine(event.lastEvent), 100)})`}`;
    case "usage":
    case "result":
    case "turn":
    case "budget":
      return undefined;
    case "error":
      return `error ${shorten(oneLine(event.message), 200)}`;
  }
}

function liveView(cli: string, stream: ViewStream, now: () => number): RunView {
  const colors = createColors(true);
  const paint: Paint = { bold: colors.bold, dim: colors.dim, green: colors.green, red: colors.red, yellow: colors.yellow };
  let progress = startProgress(cli, now());
  let note: string | undefined;
  const width = () => Math.max(40, (stream.columns ?? 80) - 4);
  const text = (): string => {
    const parts = [
      colors.bold(progress.cli),
      note ?? progress.phase,
      formatSeconds(now() - progress.startedAt),
      progress.toolCalls === 0 ? undefined : `${progress.toolCalls} tool call${progress.toolCalls === 1 ? "" : "s"}`,
      formatUsage(progress.usage),
      formatCost(progress.costUsd),
      formatBudget(progress.budget),
      progress.quietSeconds === undefined ? undefined : colors.yellow(`quiet ${progress.quietSeconds} s`),
    ].filter((part) => part !== undefined);
    const status = parts.join(colors.dim(" · "));
    return progress.lastText === undefined ? status : `${status}\n  ${colors.dim(shorten(oneLine(progress.lastText), width() - 2))}`;
  };
  // The spinner only redraws; the tool calls it prints above itself stay, as a log of the Run.
  const spinner = ora({ stream, text: text(), discardStdin: false, isEnabled: true }).start();
  const tick = setInterval(() => (spinner.text = text()), 1000);
  tick.unref();
  const above = (line: string) => {
    spinner.clear();
    stream.write(`${line}\n`);
    spinner.render();
  };
  return {
    progress: () => progress,
    note: (text_) => {
      note = text_;
      spinner.text = text();
    },
    event: (event) => {
      progress = applyEvent(progress, event);
      note = undefined;
      if (event.type === "tool_call") above(`  ${colors.cyan("›")} ${shorten(progress.lastToolCall ?? event.name, width())}`);
      else if (event.type === "tool_result" && event.isError)
        above(`    ${colors.red("tool failed")}${event.text === undefined ? "" : colors.dim(`: ${shorten(oneLine(event.text), width() - 16)}`)}`);
      spinner.text = text();
    },
    end: (outcome, work) => {
      clearInterval(tick);
      spinner.stop();
      for (const line of summaryLines(outcome, progress, work, paint)) stream.write(`${line}\n`);
    },
  };
}
