// The record step: a staged Run writes its record as it goes (request.json, then stdout.txt and
// stderr.txt, masked before a byte reaches the disk) and finishes it last (outcome.json, then the
// `done` marker), whatever happened. A record that cannot be written never changes the Outcome.

import type { Logger } from "pino";
import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import type { Masker } from "../../redact/index.js";
import { createRecordStream, removeTree, writeAtomically, type RecordStream, type RunDirectory } from "../../staging/index.js";
import { MAX_STDERR_RECORD_BYTES, MAX_STDOUT_BYTES } from "../limits.js";

/** The open record of a Run on disk, written as its output arrives (the service's RunRecord is what it keeps of a Service Run). */
export type RecordWriter = {
  readonly onStdout: (chunk: Uint8Array) => void;
  readonly onStderr: (chunk: Uint8Array) => void;
  /** Flushes and closes stdout.txt and stderr.txt; never throws. */
  readonly closeStreams: () => Promise<void>;
};

type RecordContext = { readonly runId: string; readonly masker: Masker; readonly logger: Logger };

export async function openRecord(directory: RunDirectory, request: unknown, ctx: RecordContext): Promise<RecordWriter> {
  if (request !== undefined) {
    await writeAtomically(directory.request, `${JSON.stringify(ctx.masker.maskDeep(request), null, 2)}\n`).catch(
      logFailure(ctx, "request.json could not be written", "warn"),
    );
  }
  const streams: RecordStream[] = [
    createRecordStream(directory.stdout, ctx.masker, MAX_STDOUT_BYTES),
    createRecordStream(directory.stderr, ctx.masker, MAX_STDERR_RECORD_BYTES),
  ];
  const [stdout, stderr] = streams as [RecordStream, RecordStream];
  return {
    onStdout: stdout.write,
    onStderr: stderr.write,
    closeStreams: () => Promise.all(streams.map((s) => s.close())).then(() => undefined, logFailure(ctx, "stdout.txt or stderr.txt could not be finished")),
  };
}

/** Removes the Run's secret files: a secret file never outlives its Run, kept record or not. */
export async function removeSecretFiles(directory: RunDirectory, ctx: RecordContext): Promise<void> {
  await removeTree(directory.secrets).catch(logFailure(ctx, "the Run's secret files could not be removed"));
}

/** Writes outcome.json and then `done`; removes the Run directory unless it is kept. */
export async function finishRecord<R extends ReaderVerdict>(directory: RunDirectory, outcome: Outcome<R>, keep: boolean, ctx: RecordContext): Promise<void> {
  try {
    await writeAtomically(directory.outcome, `${JSON.stringify(ctx.masker.maskDeep(outcome), null, 2)}\n`);
    await writeAtomically(directory.done, `${new Date().toISOString()}\n`);
  } catch (error) {
    logFailure(ctx, "the Run record could not be finished")(error);
  }
  // A clean-up failure (a file the agent owns that we may not delete) never rewrites the Outcome.
  if (!keep) await removeTree(directory.root).catch(logFailure(ctx, "the Run directory could not be removed; sweep() will try again"));
}

function logFailure(ctx: RecordContext, what: string, level: "warn" | "error" = "error") {
  return (error: unknown): void => {
    ctx.logger[level]({ runId: ctx.runId, err: ctx.masker.mask(error instanceof Error ? error.message : String(error)) }, what);
  };
}
