// Which requests the audit log records, read off each answered request by its route: a Run made,
// cancelled, deleted, its artifacts read. The actor is the caller's tenant and key prefix; the
// Run's id is the route's, or for a Run made, the Location the answer named.

import type { FastifyInstance } from "fastify";
import type { AuditAction, AuditLog } from "./audit.js";

const ACTIONS: ReadonlyArray<readonly [method: string, route: string, action: AuditAction]> = [
  ["POST", "/v1/runs", "run.create"],
  ["POST", "/v1/runs/:id/cancel", "run.cancel"],
  ["DELETE", "/v1/runs/:id", "run.delete"],
  ["GET", "/v1/runs/:id/artifacts", "run.artifacts"],
  ["GET", "/v1/runs/:id/artifacts.tar", "run.artifacts"],
  ["GET", "/v1/runs/:id/artifacts/*", "run.artifacts"],
];

export function registerAuditTrail(app: FastifyInstance, audit: AuditLog): void {
  app.addHook("onResponse", async (request, reply) => {
    const action = ACTIONS.find(([method, route]) => method === request.method && route === request.routeOptions.url)?.[2];
    // Refused at the door (401, 403): the door's own entry says so.
    if (action === undefined || request.caller === null || reply.statusCode === 401 || reply.statusCode === 403) return;
    const location = reply.getHeader("location");
    const made = typeof location === "string" ? location.slice(location.lastIndexOf("/") + 1) : undefined;
    const runId = (request.params as { id?: string } | undefined)?.id ?? made;
    audit.record({
      action,
      tenant: request.caller.tenant,
      key: request.caller.key,
      ...(runId === undefined ? {} : { runId }),
      result: reply.statusCode,
      remote: request.ip,
    });
  });
}
