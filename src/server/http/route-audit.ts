// GET /v1/audit: the audit log's entries since a time, oldest first (admin only, auth.ts): what
// `agentcage audit --since` prints. Never a prompt, a key or a secret: the entries hold none.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AUDIT_ACTIONS } from "../tenancy/index.js";
import { MAX_AUDIT_ENTRIES } from "../limits.js";
import { errorSchema } from "./schemas.js";
import type { Tenancy } from "../tenancy/index.js";

const entrySchema = z.object({
  time: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  tenant: z.string().optional(),
  key: z.string().optional().describe("the prefix of the key used, or operator-token"),
  runId: z.string().optional(),
  target: z.string().optional().describe("a key's prefix, a tenant's name"),
  result: z.union([z.number(), z.string()]).describe("the HTTP status answered, or why the door refused"),
  remote: z.string(),
  count: z.number().optional().describe("for refusals at the door folded into one entry: how many"),
});

export function registerAuditRoute(fastify: FastifyInstance, tenancy: Tenancy): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/audit",
    {
      schema: {
        operationId: "readAudit",
        summary: "The audit log since a time, oldest first (admin)",
        querystring: z.object({
          since: z.iso
            .datetime({ offset: true, error: (issue) => `since ${JSON.stringify(issue.input)} is not a date and time; write one such as 2026-12-01T00:00:00Z` })
            .optional()
            .describe("default: the last 24 hours"),
          limit: z.coerce.number().int().min(1).max(MAX_AUDIT_ENTRIES).default(1000).describe("the newest this many"),
        }),
        response: { 200: z.object({ entries: z.array(entrySchema) }), 400: errorSchema },
      },
    },
    async (request) => {
      await tenancy.audit.flush();
      const since = request.query.since === undefined ? Date.now() - 86_400_000 : Date.parse(request.query.since);
      return { entries: await tenancy.audit.read(since, request.query.limit) };
    },
  );
}
