// `agentcage run --remote URL`: the same Run on an agentcage service. It submits the request (and
// --in as a tar, in the same multipart POST), follows the Run's event stream, resumes it with
// Last-Event-ID when the connection drops, gives up after --idle-timeout without a word from the
// service (exit 5; the Run may go on there), cancels on Ctrl-C, and fetches the Harvest into --out
// (with --writable the change set; without --out its patch goes to stdout, as a local Run's does).
// Every request goes through agentcage/client, as any other caller's would.

import { lstat, readdir, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { type AgentcageClient, causeOf, createClient, type RunRequest, ServiceError } from "../client/index.js";
import type { AgentOutcome } from "../runner/index.js";
import { excludedBy, extractInputs, packInputs, type Excluded } from "../staging/index.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { UsageError } from "./options.js";
import type { CheckedRun } from "./run-args.js";
import type { CommandIo } from "./io.js";
import type { SummaryOutcome } from "./summary.js";
import { forStdout } from "./answer.js";
import { printable } from "./progress.js";
import { serviceUrl } from "./service-client.js";
import type { TraceHeaders } from "../trace/index.js";
import { createRunView, type RunView } from "./view.js";
import { workNotes } from "./work.js";

export type RemoteRunOptions = CheckedRun & {
  readonly url: string;
  readonly token: string | undefined;
  readonly idleTimeoutSeconds: number;
  readonly json: boolean;
  /** The caller's trace context (TRACEPARENT, TRACESTATE in the environment), sent with the submit. */
  readonly trace: TraceHeaders;
};

type RemoteOutcome = SummaryOutcome & { readonly result?: SummaryOutcome["result"] & { readonly text?: string }; readonly harvest?: AgentOutcome["harvest"] };

export async function runRemote(options: RemoteRunOptions, io: CommandIo): Promise<number> {
  const base = serviceUrl(options.url);
  if (options.token === undefined || options.token === "") {
    throw new UsageError("--remote needs the service's token in AGENTCAGE_TOKEN; the service wrote it to <runtime-dir>/service/token when it made one");
  }
  const excluded = excludedBy(options.exclude);
  if (options.inputs !== undefined) await refuseLinks(options.inputs, excluded);
  const client = createClient({ baseUrl: base, token: options.token });
  const view = createRunView(options.request.cli, io.stderr, io.live);
  view.note(`submitting to ${base.origin}`);

  const submitted = await submit(client, options, excluded);
  if ("refused" in submitted) {
    view.end({ ok: false, reason: submitted.reason, error: submitted.refused }, []);
    return submitted.code;
  }
  const id = submitted.id;
  view.note(`accepted as Run ${id}${submitted.position === undefined ? "" : `, position ${submitted.position} in the queue`}`);

  let interrupts = 0;
  let cancelling: Promise<unknown> | undefined;
  const stopListening = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts > 1) {
      io.stderr.write(`\nagentcage: left at once; cancel it yourself with POST ${base.origin}/v1/runs/${id}/cancel\n`);
      io.exit(EXIT.cancelled);
    }
    view.note("cancelling (Ctrl-C again to leave at once)");
    cancelling = client.cancel(id).catch(() => undefined);
  });
  try {
    const followed = await follow(client, id, options.idleTimeoutSeconds * 1000, view);
    await cancelling;
    if ("lost" in followed) {
      view.end({ ok: false, reason: "lost", runId: id, error: followed.lost }, []);
      return EXIT.lost;
    }
    const outcome = followed.outcome;
    const harvested = outcome.harvest?.ok === true;
    const fetched = options.out !== undefined && harvested ? await fetchHarvest(client, id, options.out, options.replace) : [];
    // --writable with no --out: the patch goes to stdout, as a local Run's does.
    const patch = options.writable && options.out === undefined && harvested ? await fetchPatch(client, id) : undefined;
    const failedFetch = fetched.filter((note) => !note.startsWith("harvested "));
    const work = options.writable
      ? [
          ...workNotes(outcome.harvest, options.out, typeof patch === "string"),
          ...failedFetch,
          ...(patch !== undefined && typeof patch !== "string" ? [patch.failed] : []),
        ]
      : fetched;
    view.end({ ...outcome, runId: id }, work);
    if (options.json) io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    else if (typeof patch === "string") io.stdout.write(forStdout(patch, io.stdout));
    else if (outcome.result?.text !== undefined) io.stdout.write(`${forStdout(outcome.result.text, io.stdout)}\n`);
    return exitCodeOf(outcome);
  } finally {
    stopListening();
  }
}

/**
 * The service refuses links in an inputs archive, and packing refuses a hard link; say so here,
 * naming the entry, before anything is sent. What --exclude names is left out of the archive, so it
 * is never read here either.
 */
async function refuseLinks(directory: string, excluded: Excluded, below = ""): Promise<void> {
  for (const entry of await readdir(join(directory, below), { withFileTypes: true })) {
    const path = below === "" ? entry.name : `${below}/${entry.name}`;
    if (excluded(path)) continue;
    if (entry.isFile()) {
      const links = (await lstat(join(directory, path)).catch(() => undefined))?.nlink ?? 1;
      if (links <= 1) continue;
      throw new UsageError(
        `--in holds ${JSON.stringify(path)}, a hard link (link count ${links}) whose bytes may be a file's outside --in; leave it out with --exclude ${JSON.stringify(path)}, or put a copy of the file there`,
      );
    }
    if (entry.isDirectory()) {
      await refuseLinks(directory, excluded, path);
      continue;
    }
    throw new UsageError(
      `--in holds ${JSON.stringify(path)}, which is not a regular file or directory (links are never sent); leave it out with --exclude ${JSON.stringify(path)}, or remove it`,
    );
  }
}

type Submitted =
  | { readonly id: string; readonly state: string; readonly position?: number }
  | { readonly refused: string; readonly reason: string; readonly code: number };

/** The Run submitted, --in as a tar in the same request; the client retries a dropped connection under one Idempotency-Key. */
async function submit(client: AgentcageClient, options: RemoteRunOptions, excluded: Excluded): Promise<Submitted> {
  // Its options left unset are undefined here and absent on the wire, as the service's schema has them.
  const request = { ...options.request, prompt: options.prompt, ...(options.writable ? { writable: true } : {}) } as RunRequest;
  const inputs = options.inputs === undefined ? undefined : Buffer.concat(await Readable.from(packInputs(options.inputs, excluded)).toArray());
  const origin = client.baseUrl.origin;
  try {
    const run = await client.submit(request, { trace: options.trace, ...(inputs === undefined ? {} : { inputs }) });
    return { id: run.id, state: run.state, ...(run.queuePosition === undefined ? {} : { position: run.queuePosition }) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.status === undefined) {
      return {
        refused: `the service at ${origin} cannot be reached (${causeOf(error.cause)}); check --remote and that agentcage serve runs there`,
        reason: "unavailable",
        code: EXIT.unavailable,
      };
    }
    const said = error.serviceMessage ?? `HTTP ${error.status}`;
    if (error.status === 401)
      return { refused: `the service refused the token (${said}); set AGENTCAGE_TOKEN to the service's token`, reason: "unauthorized", code: EXIT.usage };
    if (error.status === 429 || error.status === 503) {
      return {
        refused: `the service takes no Run now (${said}); try again in ${error.retryAfterSeconds ?? "a few"} s`,
        reason: "unavailable",
        code: EXIT.unavailable,
      };
    }
    return { refused: `the service refused the Run: ${said}`, reason: "invalid_request", code: error.status >= 500 ? EXIT.failed : EXIT.usage };
  }
}

/**
 * Follows the Run's events to its \`end\` (the client reconnects with Last-Event-ID after each drop);
 * the Outcome, or why it was lost: the service said nothing (not even a keep-alive) for \`idleMs\`, or refused the stream.
 */
async function follow(client: AgentcageClient, id: string, idleMs: number, view: RunView): Promise<{ outcome: RemoteOutcome } | { lost: string }> {
  const origin = client.baseUrl.origin;
  const where = `the Run may still be going on there: GET ${origin}/v1/runs/${id}`;
  const onReconnect = (last: number | undefined) => view.note(`reconnecting${last === undefined ? "" : ` after event ${last}`}`);
  try {
    for await (const event of client.follow(id, { idleTimeoutMs: idleMs, onReconnect })) {
      if (event.type === "agent") view.event(event.data);
      else if (event.type === "state") view.note(event.data.state);
      else if (event.type === "end") return { outcome: event.data as RemoteOutcome };
    }
    return { lost: `the service at ${origin} closed the Run's events without its end; ${where}` };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.code === "service_silent") return { lost: `no word from ${origin} for ${idleMs / 1000} s (--idle-timeout); ${where}` };
    return { lost: `${printable(error.message)}; ${where}` };
  }
}

/** The Run's Harvest as a tar, extracted under the Harvest's rules beside --out, then put in its place. */
async function fetchHarvest(client: AgentcageClient, id: string, out: string, replace: boolean): Promise<string[]> {
  let tar: ReadableStream<Uint8Array>;
  try {
    tar = await client.artifactsTar(id);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return [`the Harvest could not be fetched (${failure(error)}); GET ${client.baseUrl.origin}/v1/runs/${id}/artifacts lists it`];
  }
  const beside = join(dirname(out), `.${basename(out)}.agentcage-${process.pid}`);
  try {
    // A writable Run's change set holds the agent's own out/ beside files/ and the patch.
    const taken = await extractInputs(Readable.fromWeb(tar as NodeReadableStream<Uint8Array>), beside, { takeOut: true });
    // Checked before the Run: --out is new, or empty, or --replace was given.
    if (replace) await rm(out, { recursive: true, force: true });
    else await rmdir(out).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
    await rename(beside, out);
    return [`harvested ${taken.files} file${taken.files === 1 ? "" : "s"} (${taken.bytes.toLocaleString("en-US")} bytes) into ${out}`];
  } catch (error) {
    await rm(beside, { recursive: true, force: true });
    return [`the Harvest was not written to ${out}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

/** A writable Run's changes.patch, or why it could not be fetched. */
async function fetchPatch(client: AgentcageClient, id: string): Promise<string | { readonly failed: string }> {
  const where = `${client.baseUrl.origin}/v1/runs/${id}/artifacts/changes.patch`;
  try {
    return await new Response(await client.artifact(id, "changes.patch")).text();
  } catch (error) {
    return { failed: `the patch could not be fetched (${error instanceof ServiceError ? failure(error) : causeOf(error)}); GET ${where} serves it` };
  }
}

/** What came instead of the answer: the HTTP status, or why none came. */
function failure(error: ServiceError): string {
  return error.status === undefined ? causeOf(error.cause) : `HTTP ${error.status}`;
}
