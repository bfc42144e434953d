// GET /v1/runs/:id/events: Server-Sent Events. First a snapshot of the Run (no id: it moves no
// cursor), then every persisted event after Last-Event-ID (or ?after=), then live ones, each with its
// per-Run id, until exactly one `end` event with the Outcome; then the stream closes. A Run that
// ended while nobody listened replays in full, and so does what a follower fell too far behind to be sent. An EventSource that reconnects with the end's id
// (as it does after the stream closes) is answered 204, which stops it; `?after=` at or past the
// end gets the `end` again and the stream closes: no stream outlives its Run, nor its key (revoked or
// expired, it gets `unauthorized` instead of `end`). A comment every SSE_KEEPALIVE_MS keeps proxies open.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { SSE_KEEPALIVE_MS } from "../limits.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { z } from "zod";
import { errorSchema, eventsQuery, runIdParams } from "./schemas.js";
import { RUN_NOT_FOUND } from "./route-view.js";
import type { StoredEvent } from "../runs/index.js";
import { startEventStream } from "./sse.js";
import { unauthorized } from "./auth.js";
import { keyEndedEvent, type KeyEnd, type KeyStreams } from "./key-streams.js";

export function registerEventRoutes(fastify: FastifyInstance, all: RunService, streams: KeyStreams): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    "/v1/runs/:id/events",
    {
      schema: {
        operationId: "streamRunEvents",
        summary: "The Run's events as Server-Sent Events, resumable with Last-Event-ID",
        params: runIdParams,
        querystring: eventsQuery,
        produces: ["text/event-stream"],
        response: {
          200: z.string().describe("a text/event-stream: a snapshot, then each event (state, agent, metered), then one end with the Outcome"),
          204: z.null().describe("the Last-Event-ID is the end's: nothing follows"),
          400: errorSchema,
          404: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      const record = await service.get(request.params.id);
      if (record === undefined) return reply.code(404).send(RUN_NOT_FOUND);
      const header = Number(request.headers["last-event-id"]);
      const after = request.query.after ?? (Number.isInteger(header) && header >= 0 ? header : 0);
      // An EventSource reconnecting with the end's id (as it does once the stream closes) has seen
      // everything: 204 is the one answer that makes it stop reconnecting, per the SSE standard.
      if (request.query.after === undefined && request.headers["last-event-id"] !== undefined) {
        const end = (await service.events(record.id)).find((event) => event.type === "end");
        if (end !== undefined && after >= end.id) return reply.code(204).send(null);
      }

      // Held from its first byte: revoking the key, or its expiry, ends it with why.
      const release = streams.hold(request.caller, (why) => finish(why));
      if (typeof release === "string") return unauthorized(reply, release);
      const write = startEventStream(reply);
      const res = reply.raw;

      // Listen first, then replay: an event that lands between the two is queued, never lost or
      // doubled. A follower MAX_EVENT_STREAM_BACKLOG_BYTES behind is told nothing more until it has
      // read that, and is then replayed the same way from the record: its share of memory is bounded,
      // it stalls no other follower, and it misses nothing.
      let delivered = after;
      /** Events heard while the record is read; undefined while live. */
      let pending: StoredEvent[] | undefined = [];
      let behind = false;
      let done = false;
      const finish = (why?: KeyEnd) => {
        if (done) return;
        done = true;
        release();
        stop();
        clearInterval(keepAlive);
        // A follower too far behind to be told why is cut, not left to read what it was behind by.
        if (why !== undefined && !write(keyEndedEvent(why))) return void res.destroy();
        if (!res.destroyed) res.end();
      };
      const deliver = (event: StoredEvent) => {
        if (done || behind) return;
        // At or past the end already: there is nothing after it, and the end says so once more.
        if (event.type === "end" && event.id <= after) {
          write(frameOf(event));
          return finish();
        }
        if (event.id <= delivered) return;
        if (!write(frameOf(event))) {
          behind = true;
          res.once("drain", () => {
            behind = false;
            void replay();
          });
          return;
        }
        delivered = event.id;
        if (event.type === "end") finish();
      };
      const replay = async () => {
        pending = [];
        for (const event of await service.events(record.id)) deliver(event);
        const heard = pending;
        pending = undefined;
        for (const event of heard) deliver(event);
      };
      const stop = service.listen(record.id, (event) => (behind ? undefined : pending !== undefined ? pending.push(event) : deliver(event)));
      const keepAlive = setInterval(() => write(": keep-alive\n\n"), SSE_KEEPALIVE_MS);
      request.raw.on("close", () => finish());

      write(`event: snapshot\ndata: ${JSON.stringify((await service.get(record.id)) ?? record)}\n\n`);
      await replay();
    },
  );
}

/**
 * Each live event's frame, made once: the book tells every listener of a Run the same event object,
 * so a hundred followers share one serialization and one buffer. Replayed events are each
 * follower's own copies, and are framed for it alone.
 */
const frames = new WeakMap<StoredEvent, Uint8Array>();

function frameOf(event: StoredEvent): Uint8Array {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}
