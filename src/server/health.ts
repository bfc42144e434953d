// /healthz says the process is alive; /readyz says whether it can run an agent now, to a probe with no
// token: ready or not, and why not in general words. Nothing else: which credentials it holds and how
// many Runs it runs or queues are the service's own business, behind a key at GET /v1/service (the
// whole service's counts for the admin scope) and /metrics.

import type { FastifyInstance } from "fastify";
import type { EngineCheck, RuntimeCheck } from "../runtime/index.js";

/** What the service knows of its readiness: the checks and counts GET /v1/service shows a key. */
export type Readiness = {
  readonly ready: boolean;
  readonly engine: boolean;
  readonly image: boolean;
  readonly credentials: Readonly<Record<string, string>>;
  /** With several engines (`--engine`): each one; ready when one can take a Run. */
  readonly engines?: readonly EngineCheck[];
  /** On Kubernetes (serve --kubernetes): the cluster instead of a Docker engine; `engine` is whether a Pod can go to its namespace. */
  readonly cluster?: RuntimeCheck["cluster"];
  readonly slots: { readonly total: number; readonly running: number; readonly queued: number };
};

/** What /readyz tells anyone who asks. */
type ProbeAnswer = { readonly ready: true } | { readonly ready: false; readonly reasons: readonly string[] };

export function registerHealthRoutes(app: FastifyInstance, readiness: () => Promise<Readiness>): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ ok: true }));
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    const state = await readiness();
    return reply.code(state.ready ? 200 : 503).send(probeAnswerOf(state));
  });
}

function probeAnswerOf(state: Readiness): ProbeAnswer {
  if (state.ready) return { ready: true };
  const reasons =
    state.cluster !== undefined
      ? [clusterReason(state.cluster)]
      : state.engines === undefined
        ? [...(state.engine ? [] : ["the container engine does not answer"]), ...(state.image ? [] : ["the agent image is not on the engine"])]
        : state.engines.map((one) =>
            !one.engine
              ? `engine ${JSON.stringify(one.name)}: it does not answer`
              : !one.image
                ? `engine ${JSON.stringify(one.name)}: the agent image is not on it`
                : `engine ${JSON.stringify(one.name)}: it cannot run an agent now`,
          );
  return { ready: false, reasons: reasons.length === 0 ? ["it cannot run an agent now"] : reasons };
}

/** In general words: the server's address and the namespace's name are the deployment's own. */
function clusterReason(cluster: NonNullable<Readiness["cluster"]>): string {
  return cluster.answers ? "the Kubernetes namespace cannot hold a Run's Pod now" : "the Kubernetes API server does not answer";
}
