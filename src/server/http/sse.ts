// The head every Server-Sent Events answer of the service starts with (a Run's events, the events
// feed): the reply taken from Fastify, no caching, no proxy buffering; then a writer that is silent
// once the answer has ended, so a late event never writes to a closed stream.

import type { FastifyReply } from "fastify";

export function startEventStream(reply: FastifyReply): (text: string) => void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  return (text) => void (res.writableEnded ? undefined : res.write(text));
}
