// The Run routes under /v1, one file per route: submit as JSON or multipart with an input archive
// (route-submit.ts), list with filters and a cursor (route-list.ts), one Run (route-get.ts), what it
// was asked (route-request.ts), cancel
// (route-cancel.ts), delete one that has ended (route-delete.ts), its webhooks' deliveries
// (route-deliveries.ts); each answers a Run as
// route-view.ts shapes it. Keep the order: /openapi.json lists the operations as they are registered.

import type { FastifyInstance } from "fastify";
import { registerCancelRoute } from "./route-cancel.js";
import { registerDeleteRoute } from "./route-delete.js";
import { registerDeliveriesRoute } from "./route-deliveries.js";
import { registerGetRoute } from "./route-get.js";
import { registerListRoute } from "./route-list.js";
import { registerRequestRoute } from "./route-request.js";
import { registerSubmitRoute } from "./route-submit.js";
import type { RunService } from "../runs/index.js";

export function registerRunRoutes(fastify: FastifyInstance, service: RunService): void {
  registerSubmitRoute(fastify, service);
  registerListRoute(fastify, service);
  registerGetRoute(fastify, service);
  registerRequestRoute(fastify, service);
  registerCancelRoute(fastify, service);
  registerDeleteRoute(fastify, service);
  registerDeliveriesRoute(fastify, service);
}
