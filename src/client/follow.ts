// Following a Run's event stream: Server-Sent Events read with eventsource-parser, each numbered
// event yielded once and in order, the stream taken up again with Last-Event-ID after a drop, until
// the Run's `end`. Invariant: across any number of reconnects no event id is yielded twice and
// none is skipped (the service replays what follows Last-Event-ID); silence past the idle timeout
// (not even a keep-alive) ends the follow with `service_silent`, never a hang.

import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Client } from "openapi-fetch";
import type { RunEvent } from "./api-types.js";
import { DEFAULT_IDLE_TIMEOUT_MS, FIRST_RECONNECT_WAIT_MS, MAX_RECONNECT_WAIT_MS } from "./limits.js";
import type { paths } from "./openapi-paths.js";
import { causeOf, refusalOf, ServiceError } from "./service-error.js";

export type FollowOptions = {
  /** Resume after this event id (the last one a dropped follow yielded); default none: the whole stream from its start. */
  readonly lastEventId?: number;
  /** Ends the follow; the iterator then throws the signal's reason. */
  readonly signal?: AbortSignal;
  /** Give up (ServiceError `service_silent`) after hearing nothing for this long; default DEFAULT_IDLE_TIMEOUT_MS (60 s). */
  readonly idleTimeoutMs?: number;
  /** Told before each reconnect: the id it resumes after, and why the stream was lost. */
  readonly onReconnect?: (lastEventId: number | undefined, why: string) => void;
};

const EVENT_TYPES: ReadonlySet<string> = new Set<RunEvent["type"]>(["snapshot", "state", "agent", "end"]);

/** A Run's events, reconnecting after each drop, to its `end`; a refusal (401, 404) is thrown as a ServiceError at once. */
export async function* followRun(api: Client<paths>, base: URL, id: string, options: FollowOptions = {}): AsyncGenerator<RunEvent, void, undefined> {
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const asked = `GET /v1/runs/${id}/events`;
  let lastEventId = options.lastEventId;
  let heardAt = Date.now();
  let wait = FIRST_RECONNECT_WAIT_MS;
  for (;;) {
    options.signal?.throwIfAborted();
    const connection = new AbortController();
    let silent = false;
    // Silence past the idle timeout ends the connection, and then the follow.
    const watchdog = setInterval(
      () => {
        if (Date.now() - heardAt <= idleMs) return;
        silent = true;
        connection.abort();
      },
      Math.min(1_000, idleMs),
    );
    const stop = () => connection.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", stop, { once: true });
    let why = "the stream closed before the Run's end";
    try {
      const answered = await api.GET("/v1/runs/{id}/events", {
        params: { path: { id } },
        headers: { accept: "text/event-stream", ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }) },
        parseAs: "stream",
        signal: connection.signal,
      });
      const status = answered.response.status;
      // The end's id was sent: the service has nothing after it.
      if (status === 204) return;
      if (!answered.response.ok || answered.data === null || answered.data === undefined) {
        // A refusal stays one on the next try; a failing or busy service may come back.
        if (status < 500 && status !== 408 && status !== 429) throw refusalOf(asked, answered.response, answered.error);
        why = `HTTP ${status}`;
      } else {
        heardAt = Date.now();
        wait = FIRST_RECONNECT_WAIT_MS;
        for await (const event of eventsOf(answered.data, id, () => (heardAt = Date.now()))) {
          if (event.id !== undefined && lastEventId !== undefined && event.id <= lastEventId) continue;
          if (event.id !== undefined) lastEventId = event.id;
          yield event;
          // The caller's own time with the event is no silence of the service's.
          heardAt = Date.now();
          if (event.type === "end") return;
        }
      }
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (options.signal?.aborted === true) throw options.signal.reason;
      if (!silent) why = causeOf(error);
    } finally {
      clearInterval(watchdog);
      options.signal?.removeEventListener("abort", stop);
      // A caller that stops early (break) ends the connection here.
      connection.abort();
    }
    if (silent || Date.now() - heardAt > idleMs) throw silence(base, id, idleMs);
    options.onReconnect?.(lastEventId, why);
    await delay(wait, options.signal);
    wait = Math.min(wait * 2, MAX_RECONNECT_WAIT_MS);
  }
}

function silence(base: URL, id: string, idleMs: number): ServiceError {
  return new ServiceError(
    `no word from ${base.origin} about Run ${id} for ${idleMs} ms, not even a keep-alive; the Run may still be going on there: GET ${base.origin}/v1/runs/${id}`,
    { code: "service_silent" },
  );
}

/** The events one connection carries, as they arrive; `heard` is told of every chunk, keep-alive comments included. */
async function* eventsOf(stream: ReadableStream<Uint8Array>, runId: string, heard: () => void): AsyncGenerator<RunEvent, void, undefined> {
  const parsed: RunEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event = runEventOf(message, runId);
      if (event !== undefined) parsed.push(event);
    },
  });
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      heard();
      parser.feed(decoder.decode(value, { stream: true }));
      for (let event = parsed.shift(); event !== undefined; event = parsed.shift()) yield event;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** One SSE message as a RunEvent; undefined for a type this client does not know (a newer service's), which it passes over. */
function runEventOf(message: EventSourceMessage, runId: string): RunEvent | undefined {
  const type = message.event ?? "message";
  if (!EVENT_TYPES.has(type)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw new ServiceError(`the service sent Run ${runId}'s ${type} event ${message.id ?? ""} with data that is not JSON; it is not the API's stream`, {
      code: "service_unreachable",
    });
  }
  const id = message.id === undefined ? undefined : Number(message.id);
  return (id === undefined ? { type, data } : { type, id, data }) as RunEvent;
}

/** Waits `ms`, or until `signal` aborts (then throws its reason). */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }, ms);
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
