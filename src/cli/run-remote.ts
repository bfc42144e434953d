// `agentcage run --remote URL`: the same Run on an agentcage service. It submits the request (and
// --in as a tar, in the same multipart POST), follows the Run's event stream, resumes it with
// Last-Event-ID when the connection drops, gives up after --idle-timeout without a word from the
// service (exit 5; the Run may go on there), cancels on Ctrl-C, and fetches the Harvest into --out
// (with --writable the change set; without --out its patch goes to stdout, as a local Run's does).

import { randomUUID } from "node:crypto";
import { readdir, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { AgentEvent } from "../agents/index.js";
import type { AgentOutcome } from "../runner/index.js";
import { excludedBy, extractInputs, packArtifacts, type Excluded } from "../staging/index.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { UsageError } from "./options.js";
import type { CheckedRun } from "./run-args.js";
import type { CommandIo } from "./io.js";
import type { SummaryOutcome } from "./summary.js";
import { forStdout } from "./answer.js";
import { causeOf, serviceUrl } from "./service-client.js";
import { createRunView, type RunView } from "./view.js";
import { workNotes } from "./work.js";

export type RemoteRunOptions = CheckedRun & {
  readonly url: string;
  readonly token: string | undefined;
  readonly idleTimeoutSeconds: number;
  readonly json: boolean;
};

/** Waits between reconnects grow to this. */
const MAX_RECONNECT_WAIT_MS = 5_000;
/** A cancel or an artifact fetch that takes longer than this has failed. */
const REQUEST_TIMEOUT_MS = 30_000;

type RemoteOutcome = SummaryOutcome & { readonly result?: SummaryOutcome["result"] & { readonly text?: string }; readonly harvest?: AgentOutcome["harvest"] };

export async function runRemote(options: RemoteRunOptions, io: CommandIo): Promise<number> {
  const base = serviceUrl(options.url);
  if (options.token === undefined || options.token === "") {
    throw new UsageError("--remote needs the service's token in AGENTCAGE_TOKEN; the service wrote it to <runtime-dir>/service/token when it made one");
  }
  const excluded = excludedBy(options.exclude);
  if (options.inputs !== undefined) await refuseLinks(options.inputs, excluded);
  const headers = { authorization: `Bearer ${options.token}` };
  const view = createRunView(options.request.cli, io.stderr, io.live);
  view.note(`submitting to ${base.origin}`);

  const submitted = await submit(base, headers, options, excluded);
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
    cancelling = fetch(new URL(`/v1/runs/${id}/cancel`, base), { method: "POST", headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).catch(
      () => undefined,
    );
  });
  try {
    const followed = await follow(base, headers, id, options.idleTimeoutSeconds * 1000, view);
    await cancelling;
    if (followed === undefined) {
      view.end(
        {
          ok: false,
          reason: "lost",
          runId: id,
          error: `no word from ${base.origin} for ${options.idleTimeoutSeconds} s (--idle-timeout); the Run may still be going on there: GET ${base.origin}/v1/runs/${id}`,
        },
        [],
      );
      return EXIT.lost;
    }
    const outcome = followed;
    const harvested = outcome.harvest?.ok === true;
    const fetched = options.out !== undefined && harvested ? await fetchHarvest(base, headers, id, options.out, options.replace) : [];
    // --writable with no --out: the patch goes to stdout, as a local Run's does.
    const patch = options.writable && options.out === undefined && harvested ? await fetchPatch(base, headers, id) : undefined;
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
 * The service refuses links in an inputs archive; say so here, naming the entry, before anything
 * is sent. What --exclude names is left out of the archive, so it is never read here either.
 */
async function refuseLinks(directory: string, excluded: Excluded, below = ""): Promise<void> {
  for (const entry of await readdir(join(directory, below), { withFileTypes: true })) {
    const path = below === "" ? entry.name : `${below}/${entry.name}`;
    if (excluded(path) || entry.isFile()) continue;
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

async function submit(base: URL, headers: Record<string, string>, options: RemoteRunOptions, excluded: Excluded): Promise<Submitted> {
  const request = { ...options.request, prompt: options.prompt, ...(options.writable ? { writable: true } : {}) };
  // One key for this submit: a retry after a dropped connection answers the Run the first one made.
  const key = randomUUID();
  for (let attempt = 1; ; attempt++) {
    let body: string | FormData;
    const sent: Record<string, string> = { ...headers, "idempotency-key": key };
    if (options.inputs === undefined) {
      body = JSON.stringify(request);
      sent["content-type"] = "application/json";
    } else {
      const tar = Buffer.concat(await Readable.from(packArtifacts(options.inputs, excluded)).toArray());
      const form = new FormData();
      // A field, not a file: the service takes one file part, the archive.
      form.append("request", JSON.stringify(request));
      form.append("inputs", new Blob([tar], { type: "application/x-tar" }), "inputs.tar");
      body = form;
    }
    let response: Response;
    try {
      response = await fetch(new URL("/v1/runs", base), { method: "POST", headers: sent, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (error) {
      if (attempt < 3) {
        await sleep(500 * attempt);
        continue;
      }
      return {
        refused: `the service at ${base.origin} cannot be reached (${causeOf(error)}); check --remote and that agentcage serve runs there`,
        reason: "unavailable",
        code: EXIT.unavailable,
      };
    }
    const answer = (await response.json().catch(() => ({}))) as { id?: string; state?: string; queuePosition?: number; message?: string; error?: string };
    if (response.ok && typeof answer.id === "string")
      return { id: answer.id, state: answer.state ?? "queued", ...(answer.queuePosition === undefined ? {} : { position: answer.queuePosition }) };
    const said = answer.message ?? answer.error ?? `HTTP ${response.status}`;
    if (response.status === 401)
      return { refused: `the service refused the token (${said}); set AGENTCAGE_TOKEN to the service's token`, reason: "unauthorized", code: EXIT.usage };
    if (response.status === 429 || response.status === 503) {
      return {
        refused: `the service takes no Run now (${said}); try again in ${response.headers.get("retry-after") ?? "a few"} s`,
        reason: "unavailable",
        code: EXIT.unavailable,
      };
    }
    return { refused: `the service refused the Run: ${said}`, reason: "invalid_request", code: response.status >= 500 ? EXIT.failed : EXIT.usage };
  }
}

/**
 * Follows the Run's events to its `end`, reconnecting with Last-Event-ID after each drop; resolves
 * with the Outcome, or undefined when the service said nothing (not even a keep-alive) for `idleMs`.
 */
async function follow(base: URL, headers: Record<string, string>, id: string, idleMs: number, view: RunView): Promise<RemoteOutcome | undefined> {
  let lastEventId: string | undefined;
  let heardAt = Date.now();
  let outcome: RemoteOutcome | undefined;
  let wait = 250;
  while (outcome === undefined) {
    if (Date.now() - heardAt > idleMs) return undefined;
    const controller = new AbortController();
    // Silence past the idle timeout ends the connection, and then the follow.
    const watchdog = setInterval(
      () => {
        if (Date.now() - heardAt > idleMs) controller.abort();
      },
      Math.min(1000, idleMs),
    );
    try {
      const response = await fetch(new URL(`/v1/runs/${id}/events`, base), {
        headers: { ...headers, accept: "text/event-stream", ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) },
        signal: controller.signal,
      });
      if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
      heardAt = Date.now();
      wait = 250;
      const parser = createParser({
        onEvent: (message: EventSourceMessage) => {
          if (message.id !== undefined) lastEventId = message.id;
          const data = JSON.parse(message.data) as unknown;
          if (message.event === "agent") view.event(data as AgentEvent);
          else if (message.event === "state") view.note((data as { state: string }).state);
          else if (message.event === "end") outcome = data as RemoteOutcome;
        },
        onComment: () => undefined,
      });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        heardAt = Date.now();
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (outcome !== undefined) break;
      }
    } catch {
      // A drop, a refused connection or the watchdog: try again from the last event seen.
    } finally {
      clearInterval(watchdog);
    }
    if (outcome === undefined) {
      view.note(`reconnecting${lastEventId === undefined ? "" : ` after event ${lastEventId}`}`);
      await sleep(wait);
      wait = Math.min(wait * 2, MAX_RECONNECT_WAIT_MS);
    }
  }
  return outcome;
}

/** The Run's Harvest as a tar, extracted under the Harvest's rules beside --out, then put in its place. */
async function fetchHarvest(base: URL, headers: Record<string, string>, id: string, out: string, replace: boolean): Promise<string[]> {
  const response = await fetch(new URL(`/v1/runs/${id}/artifacts.tar`, base), { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!response.ok || response.body === null)
    return [`the Harvest could not be fetched (HTTP ${response.status}); GET ${base.origin}/v1/runs/${id}/artifacts lists it`];
  const beside = join(dirname(out), `.${basename(out)}.agentcage-${process.pid}`);
  try {
    // A writable Run's change set holds the agent's own out/ beside files/ and the patch.
    const taken = await extractInputs(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), beside, { takeOut: true });
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
async function fetchPatch(base: URL, headers: Record<string, string>, id: string): Promise<string | { readonly failed: string }> {
  const where = `${base.origin}/v1/runs/${id}/artifacts/changes.patch`;
  try {
    const response = await fetch(new URL(`/v1/runs/${id}/artifacts/changes.patch`, base), { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (response.ok) return await response.text();
    return { failed: `the patch could not be fetched (HTTP ${response.status}); GET ${where} serves it` };
  } catch (error) {
    return { failed: `the patch could not be fetched (${causeOf(error)}); GET ${where} serves it` };
  }
}
