// The Run routes under /v1: submit (202, or 429 when the queue is full), list with filters and
// a cursor, one Run with its queue position or Outcome, cancel (idempotent, bounded).

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { RETRY_AFTER_SECONDS } from "./limits.js";
import type { RunService } from "./runs.js";
import { errorSchema, listQuery, runIdParams, runRequestSchema, runSchema } from "./schemas.js";
import type { RunRecord } from "./store.js";

export function registerRunRoutes(fastify: FastifyInstance, service: RunService): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const view = async (record: RunRecord) => {
    const position = service.position(record.id);
    const outcome = record.endedAt === undefined ? undefined : await service.outcome(record.id);
    return { ...record, ...(position === undefined ? {} : { queuePosition: position }), ...(outcome === undefined ? {} : { outcome }) };
  };
  const notFound = { error: "not_found", message: "no Run with that id; list them with GET /v1/runs" };

  app.post(
    "/v1/runs",
    {
      schema: {
        summary: "Start a Run: one agent request and its prompt, in a fresh locked-down container",
        body: runRequestSchema,
        headers: z.object({ "idempotency-key": z.string().max(200).optional() }),
        response: { 200: runSchema, 202: runSchema, 429: errorSchema },
      },
    },
    async (request, reply) => {
      const submitted = await service.submit(request.body, request.headers["idempotency-key"]);
      if (submitted === "queue_full") {
        return reply.code(429).header("Retry-After", String(RETRY_AFTER_SECONDS)).send({ error: "queue_full", message: `the queue is full; try again in ${RETRY_AFTER_SECONDS} s` });
      }
      return reply.code(submitted.created ? 202 : 200).send(await view(submitted.record));
    },
  );

  app.get(
    "/v1/runs",
    { schema: { summary: "List Runs, newest first", querystring: listQuery, response: { 200: z.object({ runs: z.array(runSchema), nextCursor: z.string().optional() }) } } },
    async (request) => {
      const { state, label, limit, cursor } = request.query;
      const [key, value] = label === undefined ? [] : [label.slice(0, label.indexOf("=")), label.slice(label.indexOf("=") + 1)];
      const all = service
        .list()
        .filter((r) => (state === undefined || r.state === state) && (key === undefined || r.labels[key] === value))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
      const start = cursor === undefined ? 0 : all.findIndex((r) => r.id === cursor) + 1;
      const page = all.slice(start, start + limit);
      const last = page.at(-1);
      return { runs: await Promise.all(page.map(view)), ...(start + limit < all.length && last !== undefined ? { nextCursor: last.id } : {}) };
    },
  );

  app.get("/v1/runs/:id", { schema: { summary: "One Run: its state, queue position, Outcome", params: runIdParams, response: { 200: runSchema, 404: errorSchema } } }, async (request, reply) => {
    const record = service.get(request.params.id);
    return record === undefined ? reply.code(404).send(notFound) : view(record);
  });

  app.post(
    "/v1/runs/:id/cancel",
    { schema: { summary: "Cancel a Run; a finished one is left as it is", params: runIdParams, response: { 200: runSchema, 404: errorSchema } } },
    async (request, reply) => {
      const record = await service.cancel(request.params.id);
      return record === undefined ? reply.code(404).send(notFound) : view(record);
    },
  );
}
