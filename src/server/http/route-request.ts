// GET /v1/runs/:id/request: what a Run was asked, as the service accepted it (its prompt, CLI,
// model, caps, labels), for the console's Run page and any client that shows a Run in full. Its
// callbackUrl is not answered, only whether it has one: such an address often carries a secret.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { RUN_NOT_FOUND } from "./route-view.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorSchema, runIdParams, runRequestSchema } from "./schemas.js";

// Built from the request's fields, not derived from its schema: that one carries a check across fields, which omit() refuses.
const { callbackUrl: _address, ...askedFields } = runRequestSchema.shape;
const answeredRequest = z
  .looseObject(askedFields)
  .partial()
  .extend({ callbackUrl: z.boolean().optional().describe("whether the Run was given a callbackUrl of its own (the address itself is not answered)") });

export function registerRequestRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/runs/:id/request",
    {
      schema: {
        operationId: "getRunRequest",
        summary: "What the Run was asked: its prompt and settings, as accepted",
        params: runIdParams,
        response: { 200: answeredRequest, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      if ((await service.get(request.params.id)) === undefined) return reply.code(404).send(RUN_NOT_FOUND);
      const asked = ((await service.request(request.params.id)) ?? {}) as Record<string, unknown>;
      const { callbackUrl, ...rest } = asked;
      return { ...rest, ...(callbackUrl === undefined ? {} : { callbackUrl: true }) };
    },
  );
}
