// POST /v1/runs/:id/cancel: ends a Run (the RunService's cancel: a queued one at once, a running one
// through its container's stop) and answers it as it is then. Idempotent: a Run that has ended is
// left as it ended and answered the same way; an unknown id is a 404.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { RUN_NOT_FOUND, runView } from "./route-view.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorSchema, runIdParams, runSchema } from "./schemas.js";

export function registerCancelRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().post(
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
      const service = runsFor(all, request.caller);
      const record = await service.cancel(request.params.id);
      return record === undefined ? reply.code(404).send(RUN_NOT_FOUND) : runView(service, record);
    },
  );
}
