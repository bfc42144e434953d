// The tenants' API keys over HTTP, for the admin scope only (auth.ts): make one (its whole text is
// in that answer alone), list them (prefixes, tenants, scopes, last use; never a secret or a hash),
// revoke one (at once: its next request is refused, and every stream it holds open is ended). Each
// change is in the audit log.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { SCOPES, TENANT_PATTERN } from "../caller.js";
import { KEY_PREFIX_PATTERN } from "../tenancy/index.js";
import type { KeyStreams } from "./key-streams.js";
import { errorBody, errorSchema } from "./schemas.js";
import type { Tenancy } from "../tenancy/index.js";

const keySchema = z.object({
  prefix: z.string().describe("names the key in lists and the audit log; the key is ac_<prefix>_<secret>"),
  tenant: z.string(),
  scope: z.enum(SCOPES),
  createdAt: z.string(),
  createdBy: z.string().describe("the prefix of the key that made it, or operator-token"),
  expiresAt: z.string().optional(),
  lastUsedAt: z.string().optional(),
  revokedAt: z.string().optional(),
});

export const tenantName = z.string().regex(TENANT_PATTERN, {
  error: (issue) =>
    `tenant ${JSON.stringify(issue.input)} is not a tenant name; write 1 to 63 lower-case letters, digits, - or _, starting with a letter or digit`,
});

const createKeyBody = z.object({
  tenant: tenantName,
  scope: z
    .enum(SCOPES)
    .default("runs:write")
    .describe(
      "runs:read reads its tenant's Runs; runs:write also makes, cancels and deletes them; admin does all of it for every tenant, and keys, tenants and the audit log",
    ),
  expiresAt: z.iso
    .datetime({
      offset: true,
      error: (issue) =>
        `expiresAt ${JSON.stringify(issue.input)} is not a date and time; write one such as 2027-01-31T00:00:00Z, or leave it out for a key that does not expire`,
    })
    .optional(),
});

const prefixParams = z.object({
  prefix: z.string().regex(KEY_PREFIX_PATTERN, {
    error: (issue) => `prefix ${JSON.stringify(issue.input)} is not a key's prefix; write the 12 hex digits after ac_ (agentcage keys ls shows them)`,
  }),
});

export function registerKeyRoutes(fastify: FastifyInstance, tenancy: Tenancy, streams: KeyStreams): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    "/v1/keys",
    {
      schema: {
        operationId: "createKey",
        summary: "Make an API key for a tenant (admin); the key is in this answer only",
        body: createKeyBody,
        response: { 201: keySchema.extend({ key: z.string().describe("ac_<prefix>_<secret>: shown once, never again") }), 400: errorSchema },
      },
    },
    async (request, reply) => {
      const { tenant, scope, expiresAt } = request.body;
      if (expiresAt !== undefined && Date.parse(expiresAt) <= Date.now())
        return reply.code(400).send(errorBody("invalid_request", `expiresAt ${JSON.stringify(expiresAt)} has passed; write a time to come, or leave it out`));
      await tenancy.tenants.ensure(tenant);
      const made = await tenancy.keys.create(
        { tenant, scope, ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }) },
        request.caller.key,
      );
      tenancy.audit.record({
        action: "key.create",
        tenant: request.caller.tenant,
        key: request.caller.key,
        target: made.record.prefix,
        result: 201,
        remote: request.ip,
      });
      return reply.code(201).send({ ...made.record, key: made.key });
    },
  );
  app.get(
    "/v1/keys",
    {
      schema: {
        operationId: "listKeys",
        summary: "Every API key (admin): prefixes, tenants, scopes, last use; never a secret",
        querystring: z.object({ tenant: tenantName.optional() }),
        response: { 200: z.object({ keys: z.array(keySchema) }), 400: errorSchema },
      },
    },
    async (request) => ({ keys: tenancy.keys.list().filter((key) => request.query.tenant === undefined || key.tenant === request.query.tenant) }),
  );
  app.delete(
    "/v1/keys/:prefix",
    {
      schema: {
        operationId: "revokeKey",
        summary: "Revoke an API key (admin), at once: its next request is refused and every stream it holds open ends",
        params: prefixParams,
        response: { 200: keySchema, 400: errorSchema, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const revoked = await tenancy.keys.revoke(request.params.prefix);
      const result = revoked === undefined ? 404 : 200;
      // At once for what it holds open too: a Run's events, the feed, A2A streams, MCP calls.
      const ended = streams.revoked(request.params.prefix);
      if (ended > 0) request.log.info({ key: request.params.prefix, streams: ended }, "ended the open streams of a revoked key");
      tenancy.audit.record({
        action: "key.revoke",
        tenant: request.caller.tenant,
        key: request.caller.key,
        target: request.params.prefix,
        result,
        remote: request.ip,
      });
      if (revoked === undefined)
        return reply.code(404).send(errorBody("not_found", `no key has the prefix ${JSON.stringify(request.params.prefix)}; list them with GET /v1/keys`));
      return revoked;
    },
  );
}
