// GET /v1/usage: what the Runs that ended since a time (default: today's start, UTC) came to, per
// tenant: the caller's own, every tenant's for the admin scope (?tenant= narrows it to one). Counts
// by end reason, and tokens and cost in total and per label. Summed by the store (by day, as Runs
// end), through the caller's view of them: a tenant's figures never hold another's Runs.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { otherTenantRefusal } from "../caller.js";
import { tenantName } from "./route-keys.js";
import type { RunService } from "../runs/index.js";
import { errorBody, errorSchema } from "./schemas.js";
import { runsFor } from "../runs/index.js";
import { startOfTodayUtc, totalsSchema, zeroTotals } from "../runs/index.js";

const tenantUsageSchema = totalsSchema.extend({
  tenant: z.string(),
  labels: z.record(z.string(), totalsSchema).describe("the same for the Runs with each label, keyed key=value"),
});

type TenantUsage = z.infer<typeof tenantUsageSchema>;

export function registerUsageRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/usage",
    {
      schema: {
        operationId: "readUsage",
        summary: "What the Runs that ended since a time came to, per tenant: counts by end reason, tokens and cost, in total and per label",
        querystring: z.strictObject({
          since: z.iso
            .datetime({ offset: true, error: (issue) => `since ${JSON.stringify(issue.input)} is not a date and time; write one such as 2026-12-01T00:00:00Z` })
            .optional()
            .describe("default: the start of today, UTC"),
          tenant: tenantName.optional().describe("admin: one tenant only"),
        }),
        response: {
          200: z.object({
            since: z.string(),
            tenants: z.array(tenantUsageSchema).describe("the caller's tenant; for the admin scope each tenant with a Run ended since"),
          }),
          400: errorSchema,
          403: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const { caller } = request;
      const { tenant } = request.query;
      const refusal = otherTenantRefusal(caller, tenant, "usage");
      if (refusal !== undefined) return reply.code(403).send(errorBody("forbidden", refusal));
      const since = request.query.since === undefined ? startOfTodayUtc() : Date.parse(request.query.since);
      const byTenant = new Map<string, TenantUsage>();
      // A tenant's own figures are answered even when they are all zero; the admin's, each tenant's that has some.
      if (caller.scope !== "admin" || tenant !== undefined)
        byTenant.set(tenant ?? caller.tenant, { tenant: tenant ?? caller.tenant, ...zeroTotals(), labels: {} });
      for (const usage of await runsFor(all, caller).usage(since, tenant))
        byTenant.set(usage.tenant, { tenant: usage.tenant, ...usage.totals, labels: usage.labels });
      const tenants = [...byTenant.values()].sort((a, b) => a.tenant.localeCompare(b.tenant));
      return { since: new Date(since).toISOString(), tenants };
    },
  );
}
