// GET /v1/runs: the Runs newest first (by when they were made, then by id), filtered by state, CLI,
// labels and tenant (any for the admin scope; a tenant's key may name its own alone), a page at a
// time, each page asked of the store's index (it costs the page, not the Runs kept). The page after a
// cursor starts after the cursor's Run wherever that Run sorts now, so a Run that left the filter since
// (one that ended) does not lose the caller's place; a cursor that names no Run is refused (400).

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { otherTenantRefusal } from "../caller.js";
import { tenantName } from "./route-keys.js";
import { runView } from "./route-view.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorBody, errorSchema, listQuery, runSchema } from "./schemas.js";

const query = listQuery.extend({ tenant: tenantName.optional().describe("admin: one tenant's Runs only; any other key may name its own tenant alone") });

export function registerListRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/runs",
    {
      schema: {
        operationId: "listRuns",
        summary: "List Runs, newest first",
        querystring: query,
        response: { 200: z.object({ runs: z.array(runSchema), nextCursor: z.string().optional() }), 400: errorSchema, 403: errorSchema },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      const { state, cli, tenant, label, limit, cursor } = request.query;
      const refusal = otherTenantRefusal(request.caller, tenant, "Runs");
      if (refusal !== undefined) return reply.code(403).send(errorBody("forbidden", refusal));
      // The page after the cursor's Run, wherever it is now: it may have left this filter (a Run that ended) since.
      const after = cursor === undefined ? undefined : await service.get(cursor);
      if (cursor !== undefined && after === undefined) {
        const message = `cursor ${JSON.stringify(cursor)} names no Run (it was deleted, or never was); start again from the first page, without cursor`;
        return reply.code(400).send(errorBody("invalid_request", message));
      }
      const labels = (label ?? []).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const);
      const { records, more } = await service.page({ state, cli, tenant, labels, after, limit });
      const last = records.at(-1);
      const runs = await Promise.all(records.map((record) => runView(service, record)));
      return { runs, ...(more && last !== undefined ? { nextCursor: last.id } : {}) };
    },
  );
}
