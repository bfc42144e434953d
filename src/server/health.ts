// /healthz says the process is alive; /readyz says whether it can run an agent now: the engine
// answers, the agent image is there, which kinds of credential it has (never a value), free slots.

import type { FastifyInstance } from "fastify";

export type Readiness = {
  readonly ready: boolean;
  readonly engine: boolean;
  readonly image: boolean;
  readonly credentials: Readonly<Record<string, string>>;
  readonly slots: { readonly total: number; readonly running: number; readonly queued: number };
};

export function registerHealthRoutes(app: FastifyInstance, readiness: () => Promise<Readiness>): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ ok: true }));
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    const state = await readiness();
    return reply.code(state.ready ? 200 : 503).send(state);
  });
}
