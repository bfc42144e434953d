// GET /v1/events: the events feed (feed.ts) as the caller may see it: its own tenant's Runs only,
// every tenant's for the admin scope (?tenant= narrows it to one). As JSON, a page after a cursor
// and the cursor to send next; with Accept: text/event-stream, Server-Sent Events: what is kept after
// the cursor (or Last-Event-ID), then each entry as it is written, with a keep-alive comment every
// SSE_KEEPALIVE_MS, for as long as the client stays and its key is one (revoked or expired, the stream
// says `unauthorized` and closes). A cursor older than the oldest kept is 410.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { END_REASONS } from "../../plan/index.js";
import { otherTenantRefusal, sees } from "../caller.js";
import type { Feed, FeedEntry } from "../runs/index.js";
import { MAX_FEED_PAGE, SSE_KEEPALIVE_MS } from "../limits.js";
import type { LifecycleType } from "../runs/index.js";
import { tenantName } from "./route-keys.js";
import { errorBody, errorSchema } from "./schemas.js";
import { RUN_STATES } from "../runs/index.js";
import { startEventStream } from "./sse.js";
import { unauthorized } from "./auth.js";
import { keyEndedEvent, type KeyEnd, type KeyStreams } from "./key-streams.js";

const LIFECYCLE_TYPES = ["run.queued", "run.started", "run.finished", "run.deleted"] as const satisfies readonly LifecycleType[];

const entrySchema = z.object({
  id: z.number().int().describe("one sequence over the whole service, only growing (across restarts too): send the last one seen as after="),
  type: z.enum(LIFECYCLE_TYPES),
  runId: z.string(),
  tenant: z.string(),
  time: z.string(),
  data: z.object({
    state: z.enum(RUN_STATES),
    labels: z.record(z.string(), z.string()),
    reason: z.enum(END_REASONS).optional().describe("run.finished: the Outcome's reason"),
    durationMs: z.number().optional(),
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    costUsd: z.number().optional(),
  }),
});

const feedQuery = z.strictObject({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe("the entries after this id (the nextAfter of the previous page, or Last-Event-ID); default: from the oldest kept"),
  limit: z.coerce.number().int().min(1).max(MAX_FEED_PAGE).default(100).describe("JSON only: the most entries one page holds"),
  tenant: tenantName.optional().describe("admin: one tenant's entries only"),
});

type FeedQuery = z.infer<typeof feedQuery>;

export function registerFeedRoute(fastify: FastifyInstance, feed: Feed, streams: KeyStreams): void {
  // A feed stream never ends by itself: the service's close ends each one, or it would wait on its client.
  const open = new Set<() => void>();
  fastify.addHook("preClose", async () => {
    for (const end of [...open]) end();
  });
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/events",
    {
      schema: {
        operationId: "readEvents",
        summary: "Every Run's lifecycle in the caller's tenant (admin: every tenant), after a cursor; as Server-Sent Events with Accept: text/event-stream",
        querystring: feedQuery,
        produces: ["application/json", "text/event-stream"],
        response: {
          200: z
            .object({
              events: z.array(entrySchema),
              nextAfter: z.number().int().describe("the after= of the next page: the last entry's id, or the after sent when there was none"),
              newestId: z.number().int().describe("the newest entry's id now: after= it reads only what happens from here on (a live view's start)"),
            })
            .describe("as JSON; with Accept: text/event-stream, each entry as an event named by its type, its id the entry's"),
          400: errorSchema,
          403: errorSchema,
          410: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const { caller } = request;
      const { tenant } = request.query;
      const refusal = otherTenantRefusal(caller, tenant, "events");
      if (refusal !== undefined) return reply.code(403).send(errorBody("forbidden", refusal));
      const visible = (entry: FeedEntry) => sees(caller, entry.tenant) && (tenant === undefined || entry.tenant === tenant);
      const after = await cursorOf(request, request.query, feed);
      const standing = after === undefined ? "kept" : await feed.standing(after);
      if (standing === "expired") {
        const oldest = await feed.oldestId();
        const message = `after ${after} is older than the oldest event kept (${oldest}); list the Runs with GET /v1/runs to catch up, then read on with after=${oldest - 1}`;
        return reply.code(410).send(errorBody("cursor_expired", message));
      }
      if (standing === "ahead")
        return reply
          .code(400)
          .send(
            errorBody(
              "invalid_request",
              `after ${after} is past the newest event; send the nextAfter (or event id) this feed answered, or leave after out to read from the oldest kept`,
            ),
          );
      const from = after ?? (await feed.oldestId()) - 1;
      if (wantsStream(request)) {
        // Held from its first byte: revoking the key, or its expiry, ends it with why.
        let end: (why?: KeyEnd) => void = () => undefined;
        const release = streams.hold(caller, (why) => end(why));
        if (typeof release === "string") return unauthorized(reply, release);
        end = stream(request, reply, { feed, after: from, visible, open, release });
        return;
      }
      const events = await feed.after(from, visible, request.query.limit);
      return { events, nextAfter: events.at(-1)?.id ?? from, newestId: await feed.newestId() };
    },
  );
}

/** ?after=, else an EventSource's Last-Event-ID when it is a whole number. */
async function cursorOf(request: FastifyRequest, query: FeedQuery, feed: Feed): Promise<number | undefined> {
  if (query.after !== undefined || !wantsStream(request)) return query.after;
  const header = Number(request.headers["last-event-id"]);
  return request.headers["last-event-id"] !== undefined && Number.isSafeInteger(header) && header >= 0 ? header : (await feed.oldestId()) - 1;
}

function wantsStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? "").includes("text/event-stream");
}

/** Listen first, then replay: an entry written between the two is queued, never lost or doubled. */
type Stream = {
  readonly feed: Feed;
  readonly after: number;
  readonly visible: (entry: FeedEntry) => boolean;
  /** Where the stream puts how to end it while it is open. */
  readonly open: Set<() => void>;
  /** Lets go of the stream's hold on its key (key-streams.ts) once it ends. */
  readonly release: () => void;
};

/** Starts the stream; answers how to end it, saying why when its key stopped being one. */
function stream(request: FastifyRequest, reply: FastifyReply, { feed, after, visible, open, release }: Stream): (why?: KeyEnd) => void {
  const write = startEventStream(reply);
  const res = reply.raw;
  let delivered = after;
  let replaying = true;
  const pending: FeedEntry[] = [];
  const deliver = (entry: FeedEntry) => {
    if (entry.id <= delivered || !visible(entry)) return;
    // A follower too far behind is cut: it reads on from the last id it saw.
    if (!write(`id: ${entry.id}\nevent: ${entry.type}\ndata: ${JSON.stringify(entry)}\n\n`)) return void res.destroy();
    delivered = entry.id;
  };
  const stop = feed.listen((entry) => (replaying ? pending.push(entry) : deliver(entry)));
  const keepAlive = setInterval(() => write(": keep-alive\n\n"), SSE_KEEPALIVE_MS);
  const end = (why?: KeyEnd) => {
    open.delete(end);
    release();
    stop();
    clearInterval(keepAlive);
    if (why !== undefined) write(keyEndedEvent(why));
    if (!res.writableEnded) res.end();
  };
  open.add(end);
  request.raw.on("close", () => end());
  // A comment at once: the client knows the stream is open before the first entry.
  write(": the events feed\n\n");
  void feed.after(after, visible, Number.POSITIVE_INFINITY).then(
    (kept) => {
      for (const entry of kept) deliver(entry);
      replaying = false;
      for (const entry of pending) deliver(entry);
    },
    // The replay could not be read: the stream ends, and the client reads on from the last id it saw.
    () => end(),
  );
  return end;
}
