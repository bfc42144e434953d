// GET /v1/pool: the warm pool's figures as the runner holds them now (serve --pool), or that there is
// none. Admin only (auth.ts): the counts are the whole service's, every tenant's Runs together. No
// answer holds a secret: a pooled container holds none before its claim, so neither can its failures.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { PoolStats } from "../../runtime/index.js";
import { errorSchema } from "./schemas.js";

const count = z.number().int();
const ms = z.number();

const poolOn = z.object({
  enabled: z.literal(true),
  size: count.describe("agent containers kept ready or being made (serve --pool)"),
  maxIdleSeconds: count.describe("seconds a container waits for its Run before it is replaced (serve --pool-idle-seconds)"),
  ready: count.describe("started and waiting for a Run now"),
  making: count.describe("being made now"),
  claimed: count.describe("Runs served warm since the service started"),
  cold: z
    .record(z.string(), count)
    .describe(
      'Runs of the pooled runner served cold since the service started, by why: "empty" (none was ready), "secret files" (a login file as credential), "another network", "timeout beyond a member\'s deadline"; a writable Run goes to a runner without a pool and is not counted',
    ),
  replaced: count.describe("containers replaced: idle past maxIdleSeconds, or stopped before their Run"),
  failures: count.describe("containers that could not be made"),
  lastFailure: z.string().optional().describe("why the last one could not be made"),
  headStarts: z
    .object({ used: count, wasted: count })
    .optional()
    .describe(
      "where each container also starts claude ahead (claude under the model or none policy): warm Runs handed that claude (used), or served with it killed first (wasted: another argv)",
    ),
  claimLatencyMs: z
    .object({ count, p50: ms.optional(), p99: ms.optional(), max: ms.optional() })
    .describe("over the last warm Runs (at most 1024): ms from a Run's slot to its claim written to its container"),
});

const poolSchema = z
  .discriminatedUnion("enabled", [
    z.object({ enabled: z.literal(false).describe("the service keeps no pool (serve --pool 0): every Run starts cold") }),
    poolOn,
  ])
  .describe("the warm pool: agent containers started ahead, each bound to one Run at its claim");

export function registerPoolRoute(fastify: FastifyInstance, pool: () => PoolStats | undefined): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/pool",
    {
      schema: {
        operationId: "getPool",
        summary: "The warm pool's figures: its size, what is ready, Runs served warm and cold and why, claim latency (admin)",
        response: { 200: poolSchema, 403: errorSchema },
      },
    },
    async () => {
      const stats = pool();
      return stats === undefined ? { enabled: false as const } : { enabled: true as const, ...stats, cold: { ...stats.cold } };
    },
  );
}
