// The Run routes under /v1: submit (202; 200 for a known Idempotency-Key and the same request, 422 for
// a different one; 429 when the queue is full, 503 while draining) as JSON, or multipart with
// an input archive (inputs.ts), list with filters and a cursor, one Run with its queue position or
// Outcome, cancel (idempotent, bounded), delete one that has ended.

import type { FastifyInstance, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { extractInputs, InputsError } from "../staging/index.js";
import { readRequestPart, registerInputUploads, takeInputsPart, uploadDeadline, type InputsUpload } from "./inputs.js";
import { RETRY_AFTER_SECONDS } from "./limits.js";
import type { InputsWriter, RunService } from "./runs.js";
import { errorBody, errorSchema, listQuery, type outcomeSchema, runIdParams, runRequestSchema, runSchema } from "./schemas.js";
import type { RunRecord } from "./store.js";

export function registerRunRoutes(fastify: FastifyInstance, service: RunService): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const view = async (record: RunRecord) => {
    const position = service.position(record.id);
    // As the runner answered it (AgentOutcome); the schema serves it as it is.
    const outcome = record.endedAt === undefined ? undefined : ((await service.outcome(record.id)) as z.infer<typeof outcomeSchema> | undefined);
    return { ...record, ...(position === undefined ? {} : { queuePosition: position }), ...(outcome === undefined ? {} : { outcome }) };
  };
  const notFound = errorBody("not_found", "no Run with that id; list them with GET /v1/runs");
  const refuseInputs = (reply: FastifyReply, error: InputsError) => {
    // A bad archive was read to its end; one too large or too slow was not, and what is left of it
    // never will be: the connection closes after the answer.
    if (error.statusCode !== 400) void reply.header("connection", "close");
    return reply.code(error.statusCode).send(errorBody(error.code, error.message));
  };

  // Only this route takes multipart, so the multipart parser lives in a scope of its own.
  void fastify.register(async (scope) => {
    await registerInputUploads(scope);
    scope.withTypeProvider<ZodTypeProvider>().post(
      "/v1/runs",
      {
        schema: {
          operationId: "createRun",
          summary: "Start a Run: one agent request and its prompt, in a fresh locked-down container",
          description:
            "The Run request as JSON; or, to give the agent input files, multipart/form-data with the part `request` (this JSON) and then the file part `inputs`: " +
            "an uncompressed tar archive of regular files and directories (no links, devices, absolute or `..` names). It is checked and extracted before the Run is accepted; " +
            "a bad archive refuses the Run (400) naming the entry, and the agent finds the files in its working directory.",
          body: runRequestSchema,
          headers: z.object({ "idempotency-key": z.string().max(200).optional() }),
          response: {
            200: runSchema,
            202: runSchema,
            400: errorSchema,
            408: errorSchema,
            413: errorSchema,
            422: errorSchema,
            429: errorSchema,
            503: errorSchema,
          },
        },
        preValidation: readRequestPart,
      },
      async (request, reply) => {
        let upload: InputsUpload | undefined;
        try {
          upload = await takeInputsPart(request);
        } catch (error) {
          if (error instanceof InputsError) return refuseInputs(reply, error);
          throw error;
        }
        const writer: InputsWriter | undefined =
          upload === undefined
            ? undefined
            : async (directory) => {
                const summary = await extractInputs(upload.archive, directory, { signal: uploadDeadline() });
                await upload.finish();
                return summary;
              };
        let submitted: Awaited<ReturnType<RunService["submit"]>>;
        try {
          submitted = await service.submit(request.body, request.headers["idempotency-key"], writer);
        } catch (error) {
          if (error instanceof InputsError) return refuseInputs(reply, error);
          throw error;
        }
        // Answered without reading the archive (a full queue, a known key): it is read and dropped.
        if (upload !== undefined && (typeof submitted === "string" || !("created" in submitted) || !submitted.created)) upload.discard();
        if (submitted === "queue_full") {
          return reply
            .code(429)
            .header("Retry-After", String(RETRY_AFTER_SECONDS))
            .send(errorBody("queue_full", `the queue is full; try again in ${RETRY_AFTER_SECONDS} s`));
        }
        if (submitted === "draining") {
          return reply
            .code(503)
            .header("Retry-After", String(RETRY_AFTER_SECONDS))
            .send(errorBody("draining", "the service is shutting down and takes no new Runs; send it to the service once it is back"));
        }
        if ("unserved" in submitted) return reply.code(400).send(errorBody("invalid_request", submitted.unserved));
        if ("reused" in submitted) {
          const key = JSON.stringify(request.headers["idempotency-key"]);
          const message = `Idempotency-Key ${key} was already used for Run ${submitted.reused.id} with a different request; send that same request to get that Run again, or a new key for a new Run`;
          return reply.code(422).send(errorBody("idempotency_key_reused", message));
        }
        return reply.code(submitted.created ? 202 : 200).send(await view(submitted.record));
      },
    );
  });

  app.get(
    "/v1/runs",
    {
      schema: {
        operationId: "listRuns",
        summary: "List Runs, newest first",
        querystring: listQuery,
        response: { 200: z.object({ runs: z.array(runSchema), nextCursor: z.string().optional() }), 400: errorSchema },
      },
    },
    async (request, reply) => {
      const { state, label, limit, cursor } = request.query;
      const wanted = (label ?? []).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const);
      const newestFirst = (a: RunRecord, b: RunRecord) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
      const all = service
        .list()
        .filter((r) => (state === undefined || r.state === state) && wanted.every(([key, value]) => r.labels[key] === value))
        .sort(newestFirst);
      // The page after the cursor's Run, wherever it is now: it may have left this filter (a Run that ended) since.
      const after = cursor === undefined ? undefined : service.get(cursor);
      if (cursor !== undefined && after === undefined) {
        const message = `cursor ${JSON.stringify(cursor)} names no Run (it was deleted, or never was); start again from the first page, without cursor`;
        return reply.code(400).send(errorBody("invalid_request", message));
      }
      const start = after === undefined ? 0 : all.filter((r) => newestFirst(r, after) <= 0).length;
      const page = all.slice(start, start + limit);
      const last = page.at(-1);
      return { runs: await Promise.all(page.map(view)), ...(start + limit < all.length && last !== undefined ? { nextCursor: last.id } : {}) };
    },
  );

  app.get(
    "/v1/runs/:id",
    {
      schema: {
        operationId: "getRun",
        summary: "One Run: its state, queue position, Outcome",
        params: runIdParams,
        response: { 200: runSchema, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const record = service.get(request.params.id);
      return record === undefined ? reply.code(404).send(notFound) : view(record);
    },
  );

  app.post(
    "/v1/runs/:id/cancel",
    {
      schema: {
        operationId: "cancelRun",
        summary: "Cancel a Run; a finished one is left as it is",
        params: runIdParams,
        response: { 200: runSchema, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const record = await service.cancel(request.params.id);
      return record === undefined ? reply.code(404).send(notFound) : view(record);
    },
  );

  app.delete(
    "/v1/runs/:id",
    {
      schema: {
        operationId: "deleteRun",
        summary: "Remove a Run that has ended, its record and its artifacts",
        params: runIdParams,
        response: { 204: z.null().describe("removed"), 404: errorSchema, 409: errorSchema },
      },
    },
    async (request, reply) => {
      const removed = await service.remove(request.params.id);
      if (removed === undefined) return reply.code(404).send(notFound);
      if (removed === "live") {
        const state = service.get(request.params.id)?.state ?? "live";
        return reply.code(409).send(errorBody("not_ended", `the Run is ${state}; cancel it first (POST /v1/runs/${request.params.id}/cancel), then delete it`));
      }
      return reply.code(204).send(null);
    },
  );
}
