// GET /v1/runs/:id: one Run as it is now, with its place in the queue while it waits and its
// Outcome once it has ended. Reads only; an unknown id is a 404.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { RUN_NOT_FOUND, runView } from "./route-view.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorSchema, runIdParams, runSchema } from "./schemas.js";

export function registerGetRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
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
      const service = runsFor(all, request.caller);
      const record = await service.get(request.params.id);
      return record === undefined ? reply.code(404).send(RUN_NOT_FOUND) : runView(service, record);
    },
  );
}
