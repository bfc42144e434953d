// GET /v1/service: what the service's page shows, in one answer: its version and start, whether it
// can run an agent now (the checks /readyz makes), what makes it less than it says (degraded), its
// slots, each tenant's Runs now and usage today, and its egress proxy. The admin scope sees all of
// it, every tenant's, and each degradation's own reason and fix. Any other key sees its own
// tenant's counts and usage only, the number of slots but not how many Runs the whole service runs
// or queues (that is other tenants' activity), and neither the agent image's name nor the proxy's
// container (the deployment's own). No answer holds a secret: credentials by kind, never by value.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { SCOPES, type Caller } from "../caller.js";
import { DEGRADATION_KINDS } from "../../runtime/index.js";
import { inGeneralWords, type Readiness } from "./health.js";
import { EGRESS_PROBE_TIMEOUT_MS } from "../limits.js";
import type { RunService } from "../runs/index.js";
import type { EgressView } from "./service-egress.js";
import type { RunRecord } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import type { TenantStore } from "../tenancy/index.js";
import { startOfTodayUtc, totalsSchema, zeroTotals, type TenantUsage, type Totals } from "../runs/index.js";

/** What the service knows of itself from its start, for GET /v1/service. */
export type ServiceFacts = {
  /** agentcage's version, from its package.json. */
  readonly version: string;
  readonly startedAt: string;
  readonly agentImage: string;
  /** Every agent talks to the stand-in model (serve --stand-in), whatever credential it is handed. */
  readonly standIn: boolean;
  readonly egress: () => Promise<EgressView>;
};

export type ServiceRouteOptions = {
  readonly service: RunService;
  readonly readiness: () => Promise<Readiness>;
  readonly tenants: TenantStore;
  readonly facts: ServiceFacts;
};

const count = z.number().int();

const tenantNowSchema = z.object({
  tenant: z.string(),
  running: count.describe("its Runs holding a slot now (starting or running)"),
  queued: count.describe("its Runs waiting for a slot now"),
  today: totalsSchema.describe("its Runs that ended since `since` (today's start, UTC), summed as GET /v1/usage sums them"),
});

const egressSchema = z.object({
  networkPolicy: z
    .string()
    .describe('what every agent may reach: "none" (the default), "model", "allowlist", "open"; "networks" when the Operator named the networks'),
  proxy: z
    .enum(["none", "started", "connected"])
    .describe("none: the policy needs no egress proxy; started: serve's own, started with it; connected: the Operator's (compose's egress service)"),
  container: z.string().optional().describe("admin: the proxy's container, which each Run's network is joined to"),
  alias: z.string().optional().describe("the host name agents reach the proxy by on their Run's network"),
  port: count.optional().describe("the port agents reach the proxy on"),
  answering: z
    .boolean()
    .optional()
    .describe(
      `whether the proxy lives: its control endpoint answered just now, or it did not within ${EGRESS_PROBE_TIMEOUT_MS / 1000} s (stretched by the machine's load) and is not shown gone (slow); false only when its container is not running or its socket refuses`,
    ),
  slow: z.literal(true).optional().describe("it lives, and did not answer within the probe's bound: a busy proxy, not a gone one"),
});

const degradedSchema = z.object({
  kind: z
    .enum(DEGRADATION_KINDS)
    .describe(
      "pool: the warm pool cannot make its containers; run-network-range: the Run networks' range clashes with a network of the host; engine: an engine stopped answering; egress-proxy: an engine's egress proxy was found gone",
    ),
  subject: z.string().optional().describe("admin: which one, where a kind can hold several (an engine's name)"),
  reason: z
    .string()
    .describe("what is wrong and what happens meanwhile; in general words for any key but the admin's, which reads the deployment's own details"),
  fix: z.string().optional().describe("admin: what the Operator can do about it"),
  stopsRuns: z.boolean().describe("true: no Run that needs the part can start while it lasts (the service is not ready)"),
  since: z.string().describe("when it began"),
});

const serviceSchema = z.object({
  caller: z
    .object({ tenant: z.string(), scope: z.enum(SCOPES) })
    .describe("who asked: the key's tenant and scope (a console shows the admin's pages to the admin scope alone)"),
  version: z.string().describe("agentcage's version"),
  startedAt: z.string().describe("when this service started"),
  ready: z
    .boolean()
    .describe("whether it can run an agent now: the engine answers, the agent image is there and no degradation stops every Run (as /readyz says)"),
  standIn: z.boolean().describe("true: every agent talks to the stand-in model (serve --stand-in), offline; its credentials are the stand-in's"),
  checks: z.object({
    engine: z.boolean().describe("whether the container engine answers"),
    image: z.boolean().describe("whether the agent image is on the engine"),
    agentImage: z.string().optional().describe("admin: the agent image's name"),
    credentials: z.record(z.string(), z.string()).describe("for each CLI, the kind of credential a Run would get (none: it has none); never a value"),
    cluster: z
      .object({
        answers: z.boolean().describe("whether the Kubernetes API server answers"),
        namespace: z.string().describe("where the Runs' Pods go"),
        server: z.string().optional().describe("admin: the API server's address, as the kubeconfig names it"),
        problem: z.string().optional().describe("admin: what keeps a Pod from going there now"),
      })
      .optional()
      .describe("on Kubernetes (serve --kubernetes): the cluster instead of a container engine; `engine` is whether a Pod can go to its namespace now"),
  }),
  slots: z
    .object({ total: count.describe("Runs the service runs at once"), running: count, queued: count })
    .describe("running and queued: the whole service's for the admin scope; the caller's tenant's own for any other key"),
  since: z.string().describe("the start of today (UTC), from which each tenant's `today` counts"),
  tenants: z.array(tenantNowSchema).describe("admin: every tenant (each one known, and each with a Run), by name; any other key: its own only"),
  egress: egressSchema.describe("the egress proxy the agents go through, when their policy needs one; never its control secret"),
  degraded: z.array(degradedSchema).describe("what makes the service less than it says now, oldest first (as /readyz lists it); empty when nothing does"),
});

type TenantNow = z.infer<typeof tenantNowSchema>;

export function registerServiceRoute(fastify: FastifyInstance, options: ServiceRouteOptions): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/service",
    {
      schema: {
        operationId: "getService",
        summary:
          "The service at a glance: version and start, readiness, slots, each tenant's Runs now and usage today (a tenant's key: its own only), the egress proxy",
        response: { 200: serviceSchema },
      },
    },
    async (request) => {
      const { caller } = request;
      const admin = caller.scope === "admin";
      const [readiness, egress] = await Promise.all([options.readiness(), options.facts.egress()]);
      const since = startOfTodayUtc();
      const runs = runsFor(options.service, caller);
      const known = admin ? [...options.tenants.list().map((t) => t.name), ...runs.tenants()] : [];
      const tenants = tenantsNow(runs.live(), await runs.usage(since), known, caller);
      const own = tenants.find((t) => t.tenant === caller.tenant);
      const { credentials } = readiness;
      return {
        caller: { tenant: caller.tenant, scope: caller.scope },
        version: options.facts.version,
        startedAt: options.facts.startedAt,
        ready: readiness.ready,
        standIn: options.facts.standIn,
        checks: {
          engine: readiness.engine,
          image: readiness.image,
          ...(admin ? { agentImage: options.facts.agentImage } : {}),
          credentials,
          ...(readiness.cluster === undefined ? {} : { cluster: clusterSeen(readiness.cluster, admin) }),
        },
        slots: admin ? readiness.slots : { total: readiness.slots.total, running: own?.running ?? 0, queued: own?.queued ?? 0 },
        since: new Date(since).toISOString(),
        tenants,
        egress: admin ? egress : withoutContainer(egress),
        degraded: (readiness.degraded ?? []).map((one) =>
          admin
            ? {
                kind: one.kind,
                ...(one.subject === "" ? {} : { subject: one.subject }),
                reason: one.reason,
                fix: one.fix,
                stopsRuns: one.stopsRuns,
                since: one.since,
              }
            : { ...inGeneralWords(one), stopsRuns: one.stopsRuns },
        ),
      };
    },
  );
}

/**
 * Each tenant's Runs now (`live`) and what those that ended since today's start came to (`today`),
 * as the caller sees them: the caller's own tenant always (zeros when it has no Run), and each of
 * `known` (the admin's: each tenant known, and each with a Run kept).
 */
function tenantsNow(live: readonly RunRecord[], today: readonly TenantUsage[], known: readonly string[], caller: Caller): TenantNow[] {
  const byTenant = new Map<string, { running: number; queued: number; today: Totals }>();
  const of = (tenant: string) => {
    const found = byTenant.get(tenant) ?? { running: 0, queued: 0, today: zeroTotals() };
    byTenant.set(tenant, found);
    return found;
  };
  for (const tenant of [caller.tenant, ...known]) of(tenant);
  for (const record of live) {
    const now = of(record.tenant);
    if (record.state === "queued") now.queued += 1;
    else if (record.state === "starting" || record.state === "running") now.running += 1;
  }
  for (const usage of today) of(usage.tenant).today = usage.totals;
  return [...byTenant.entries()].map(([tenant, now]) => ({ tenant, ...now })).sort((a, b) => a.tenant.localeCompare(b.tenant));
}

/** The cluster as the caller may see it: its address and what is wrong with it are the admin's. */
function clusterSeen(cluster: NonNullable<Readiness["cluster"]>, admin: boolean) {
  const { answers, namespace, server, problem } = cluster;
  return { answers, namespace, ...(admin ? { server, ...(problem === undefined ? {} : { problem }) } : {}) };
}

function withoutContainer({ container: _deployments, ...seen }: EgressView): EgressView {
  return seen;
}
