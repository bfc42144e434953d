// The loop both parsers share: frame the stream into JSON lines, count noise and oversized lines,
// hand each record to the CLI's own handler, and stop at the record the handler calls terminal (or
// at the stream's end). Nothing after the terminal record is awaited: the runtime drains the rest.

import { jsonLines, MAX_LINE_BYTES, MAX_NOISE_LINES } from "../../plan/index.js";
import type { AgentEvent, StreamParseOptions } from "./result.js";

export type StreamTally = { noiseLines: number; oversizedLines: number; tooNoisy: boolean; firstNoise?: string };

/** What a handler answers for a record: "terminal" ends the reading there (the CLI has answered). */
export type RecordVerdict = "terminal" | undefined;

/**
 * Feeds each JSON record to `handle` until it answers "terminal" or the stream ends; an `onEvent`
 * that throws is the caller's bug and is not caught.
 */
export async function readRecords(
  source: AsyncIterable<Uint8Array>,
  options: StreamParseOptions,
  handle: (record: Record<string, unknown>) => RecordVerdict,
): Promise<StreamTally> {
  const tally: StreamTally = { noiseLines: 0, oversizedLines: 0, tooNoisy: false };
  const maxNoise = options.maxNoiseLines ?? MAX_NOISE_LINES;
  // Each line as soon as it is framed: no promise per line. Answering false closes the source;
  // the runtime keeps draining the agent's stdout.
  await jsonLines.each(
    source,
    options.maxLineBytes ?? MAX_LINE_BYTES,
    (record) => tally.tooNoisy || handle(record) !== "terminal",
    (line) => {
      if (line.kind === "oversized") tally.oversizedLines += 1;
      else {
        tally.noiseLines += 1;
        tally.firstNoise ??= line.text;
        // Past the cap, keep draining (so the agent is never blocked) but stop believing the stream.
        if (tally.noiseLines > maxNoise) tally.tooNoisy = true;
      }
    },
  );
  return tally;
}

/**
 * The parser's way to emit, or undefined when nobody listens: call it as `emit?.(event)`, so an
 * event nobody would see is not even built.
 */
export function emitter(options: StreamParseOptions): ((event: AgentEvent) => void) | undefined {
  return options.onEvent === undefined ? undefined : (event) => options.onEvent?.(event);
}

/** Reads a field only when it has the type asked for. */
export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
export const obj = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
export const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function tooNoisyMessage(cli: string, options: StreamParseOptions, firstNoise: string | undefined): string {
  const cap = options.maxNoiseLines ?? MAX_NOISE_LINES;
  return `${cli} printed more than ${cap} lines that are not JSON (MAX_NOISE_LINES), starting with ${JSON.stringify(firstNoise ?? "")}; is this the CLI and output format the adapter expects?`;
}
