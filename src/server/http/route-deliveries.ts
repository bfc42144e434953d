// GET /v1/runs/:id/deliveries: the webhooks a Run owes or owed (run.started, run.finished), each
// with every attempt to deliver it and what its receiver answered; read from the Run's
// deliveries.jsonl. Neither the callback URL nor the body is served: the body is what the receiver got.

import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { RUN_NOT_FOUND } from "./route-view.js";
import type { RunService } from "../runs/index.js";
import { runsFor } from "../runs/index.js";
import { errorSchema, runIdParams } from "./schemas.js";
import type { StoredDelivery } from "../runs/index.js";

const attemptSchema = z.object({
  attempt: z.number().int().describe("1 for the first"),
  at: z.string().describe("when it started"),
  delivered: z.boolean().describe("whether the receiver answered 2xx"),
  status: z.number().int().optional().describe("the receiver's HTTP status; none when there was no answer"),
  error: z.string().optional().describe("why there was no answer: the connection, the time, or an address the service may not post to"),
  durationMs: z.number(),
  response: z.string().optional().describe("the start of the receiver's answer (its first KiB)"),
  nextAttemptAt: z.string().optional().describe("when it is tried again; none: delivered, or no more attempts"),
});

const deliveriesSchema = z.object({
  id: z.string(),
  webhooks: z.array(
    z.object({
      webhookId: z.string().describe("the webhook-id header: the same for every attempt, so a receiver dedupes by it"),
      type: z.enum(["run.started", "run.finished"]),
      at: z.string().describe("when the event happened"),
      state: z.enum(["pending", "delivered", "failed"]).describe("failed: no attempt was answered 2xx, and there will be no more"),
      attempts: z.array(attemptSchema),
    }),
  ),
});

type DeliveriesView = z.infer<typeof deliveriesSchema>;

export function registerDeliveriesRoute(fastify: FastifyInstance, all: RunService): void {
  fastify.withTypeProvider<ZodTypeProvider>().get(
    "/v1/runs/:id/deliveries",
    {
      schema: {
        operationId: "listRunDeliveries",
        summary: "A Run's webhooks and every attempt to deliver them",
        params: runIdParams,
        response: { 200: deliveriesSchema, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const service = runsFor(all, request.caller);
      if ((await service.get(request.params.id)) === undefined) return reply.code(404).send(RUN_NOT_FOUND);
      return { id: request.params.id, webhooks: webhooksOf(await service.deliveries(request.params.id)) };
    },
  );
}

function webhooksOf(lines: readonly StoredDelivery[]): DeliveriesView["webhooks"] {
  const webhooks = new Map<string, DeliveriesView["webhooks"][number]>();
  for (const line of lines) {
    if (line.kind === "owed") {
      webhooks.set(line.webhookId, { webhookId: line.webhookId, type: line.type, at: line.at, state: "pending", attempts: [] });
      continue;
    }
    const webhook = webhooks.get(line.webhookId);
    if (webhook === undefined) continue;
    if (line.kind === "abandoned") {
      webhook.state = "failed";
      continue;
    }
    const { attempt = webhook.attempts.length + 1, at, delivered = false, status, error, durationMs = 0, response, nextAttemptAt } = line;
    webhook.attempts.push({
      attempt,
      at,
      delivered,
      durationMs,
      ...(status === undefined ? {} : { status }),
      ...(error === undefined ? {} : { error }),
      ...(response === undefined ? {} : { response }),
      ...(nextAttemptAt === undefined ? {} : { nextAttemptAt }),
    });
    webhook.state = delivered ? "delivered" : nextAttemptAt === undefined ? "failed" : "pending";
  }
  return [...webhooks.values()];
}
