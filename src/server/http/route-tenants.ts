// The tenants over HTTP: every tenant and its quotas, and changing them, for the admin scope only
// (auth.ts); and GET /v1/tenant, a caller's own tenant as the service holds it to: its quotas as they
// hold now, its callback URL, and (to a key that may make Runs) the secret its webhooks are signed with.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { quote } from "../../errors/index.js";
import { checkCallbackUrl } from "../webhooks/index.js";
import { allows } from "../caller.js";
import { tenantName } from "./route-keys.js";
import type { ResolvedQuotas } from "../runs/index.js";
import { errorBody, errorSchema } from "./schemas.js";
import type { Tenancy } from "../tenancy/index.js";
import type { QuotaChanges, Tenant } from "../tenancy/index.js";

const quotasSchema = z.object({
  maxRunning: z.number().int().optional().describe("its Runs holding a slot at once; more wait in the queue"),
  maxQueued: z.number().int().optional().describe("its Runs accepted and not ended; past it POST /v1/runs is 429 quota_exceeded"),
  dailySpendUsd: z.number().optional().describe("what its Runs may cost per UTC day; past it POST /v1/runs is 429 quota_exceeded until midnight UTC"),
});

const tenantSchema = z.object({
  name: z.string(),
  createdAt: z.string(),
  quotas: quotasSchema.describe("the Operator's own for this tenant; one left out is the service's default"),
  effectiveQuotas: quotasSchema.describe("what holds now: its own, or the service's defaults"),
  callbackUrl: z.string().optional(),
  webhookSecret: z.string().optional().describe("signs its webhooks (Standard Webhooks); shown to the admin scope and to the tenant's runs:write keys"),
});

const changeBody = z.object({
  maxRunning: z.number().int().min(1).max(10_000).nullable().optional(),
  maxQueued: z.number().int().min(1).max(1_000_000).nullable().optional(),
  dailySpendUsd: z.number().min(0).max(1_000_000).nullable().optional(),
  callbackUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .optional()
    .describe("null: none"),
  rotateWebhookSecret: z.boolean().optional(),
});

export function registerTenantRoutes(
  fastify: FastifyInstance,
  tenancy: Tenancy,
  quotasOf: (tenant: string) => ResolvedQuotas,
  allowPrivateCallbacks: boolean,
): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const view = (tenant: Tenant, withSecret: boolean) => {
    const { webhookSecret, ...rest } = tenant;
    return { ...rest, effectiveQuotas: quotasOf(tenant.name), ...(withSecret ? { webhookSecret } : {}) };
  };
  app.get(
    "/v1/tenant",
    {
      schema: {
        operationId: "getOwnTenant",
        summary: "The caller's own tenant: its quotas as they hold now, its callback URL, its webhook secret",
        response: { 200: tenantSchema },
      },
    },
    async (request) => view(await tenancy.tenants.ensure(request.caller.tenant), allows(request.caller, "runs:write")),
  );
  app.get(
    "/v1/tenants",
    { schema: { operationId: "listTenants", summary: "Every tenant and its quotas (admin)", response: { 200: z.object({ tenants: z.array(tenantSchema) }) } } },
    async () => ({ tenants: tenancy.tenants.list().map((tenant) => view(tenant, false)) }),
  );
  app.get(
    "/v1/tenants/:name",
    {
      schema: {
        operationId: "getTenant",
        summary: "One tenant, with its webhook secret (admin)",
        params: z.object({ name: tenantName }),
        response: { 200: tenantSchema, 400: errorSchema, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const tenant = tenancy.tenants.get(request.params.name);
      if (tenant === undefined)
        return reply.code(404).send(errorBody("not_found", `no tenant ${JSON.stringify(request.params.name)}; list them with GET /v1/tenants`));
      return view(tenant, true);
    },
  );
  app.put(
    "/v1/tenants/:name",
    {
      schema: {
        operationId: "changeTenant",
        summary: "Make or change a tenant (admin): its quotas (null: back to the default), its callback URL, a new webhook secret",
        params: z.object({ name: tenantName }),
        body: changeBody,
        response: { 200: tenantSchema, 400: errorSchema },
      },
    },
    async (request, reply) => {
      const { maxRunning, maxQueued, dailySpendUsd, callbackUrl, rotateWebhookSecret } = request.body;
      // Checked as a Run's own would be at submit: a default no Run could use is refused now, not at each submit.
      const checked = typeof callbackUrl === "string" ? await checkCallbackUrl(callbackUrl, allowPrivateCallbacks) : undefined;
      if (checked?.ok === false) {
        const advice = checked.why.startsWith("resolves to")
          ? "give the address of a receiver the service can reach, or start the service with --allow-private-callbacks for the deployment's own receivers"
          : "give the address of a receiver the service can reach";
        return reply.code(400).send(errorBody("invalid_request", `callbackUrl ${quote(callbackUrl as string)} ${checked.why}; ${advice}`));
      }
      const quotas: QuotaChanges = Object.fromEntries(Object.entries({ maxRunning, maxQueued, dailySpendUsd }).filter(([, value]) => value !== undefined));
      const changed = await tenancy.tenants.change(request.params.name, {
        quotas,
        ...(callbackUrl === undefined ? {} : { callbackUrl }),
        ...(rotateWebhookSecret === undefined ? {} : { rotateWebhookSecret }),
      });
      tenancy.audit.record({
        action: "tenant.change",
        tenant: request.caller.tenant,
        key: request.caller.key,
        target: request.params.name,
        result: 200,
        remote: request.ip,
      });
      return view(changed, true);
    },
  );
}
