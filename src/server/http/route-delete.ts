// DELETE /v1/runs/:id: removes a Run that has ended, its record and its artifacts (204). A Run
// still queued or running is refused (409, saying to cancel it first): nothing is removed from
// under a live Run. An unknown id is a 404.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { RUN_NOT_FOUND } from "./route-view.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorBody, errorSchema, runIdParams } from "./schemas.js";

export function registerDeleteRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().delete(
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
      const service = runsFor(all, request.caller);
      const removed = await service.remove(request.params.id);
      if (removed === undefined) return reply.code(404).send(RUN_NOT_FOUND);
      if (removed === "live") {
        const state = (await service.get(request.params.id))?.state ?? "live";
        return reply.code(409).send(errorBody("not_ended", `the Run is ${state}; cancel it first (POST /v1/runs/${request.params.id}/cancel), then delete it`));
      }
      return reply.code(204).send(null);
    },
  );
}
