// The head every Server-Sent Events answer of the service starts with (a Run's events, the events
// feed): the reply taken from Fastify, no caching, no proxy buffering; then a writer that is silent
// once the answer has ended, so a late event never writes to a closed stream, and that writes nothing
// to a follower that left MAX_EVENT_STREAM_BACKLOG_BYTES unread: what it is held is bounded, and the
// route decides what the follower gets instead (the Run's events: the record, once it has read on).

import type { FastifyReply } from "fastify";
import { MAX_EVENT_STREAM_BACKLOG_BYTES } from "../limits.js";

/** Writes one frame (text, or bytes made once for every follower); false when the follower is too far behind, and nothing was written. */
export type EventStreamWriter = (frame: string | Uint8Array) => boolean;

export function startEventStream(reply: FastifyReply): EventStreamWriter {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    // No Connection header of its own: Node says keep-alive or close as the client asked.
    "x-accel-buffering": "no",
  });
  return (frame) => {
    if (res.writableEnded || res.destroyed) return true;
    if (res.writableLength > MAX_EVENT_STREAM_BACKLOG_BYTES) return false;
    res.write(frame);
    return true;
  };
}
