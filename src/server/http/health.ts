// /healthz says the process is alive; /readyz says whether it can run an agent now, to a probe with no
// token: ready or not, and why not in general words; and, ready or not, what makes it less than it
// says (degraded), in general words too. Degraded is still ready (200): a service whose pool cannot
// fill still runs Runs cold, and a readiness probe that took it out of rotation would turn slower
// into none at all; only a degradation that stops every Run (stopsRuns) makes it not ready (503).
// Nothing else: which credentials it holds and how many Runs it runs or queues are the service's own
// business, behind a key at GET /v1/service (the whole service's counts for the admin scope) and /metrics.

import type { FastifyInstance } from "fastify";
import type { Degradation, DegradationKind, EngineCheck, RuntimeCheck } from "../../runtime/index.js";

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
  /** Why it cannot run an agent now, in its backend's general words (RuntimeCheck.unready). */
  readonly unready?: RuntimeCheck["unready"];
  readonly slots: { readonly total: number; readonly running: number; readonly queued: number };
  /** What makes it less than it says now, oldest first (its runners' board); default none. */
  readonly degraded?: readonly Degradation[];
};

/** One degradation as anyone may read it: its kind, when it began, and a sentence that names nothing of the deployment but an engine's name. */
export type DegradationSeen = { readonly kind: DegradationKind; readonly reason: string; readonly since: string };

/** What /readyz tells anyone who asks; `degraded` only when something is. */
type ProbeAnswer =
  | { readonly ready: true; readonly degraded?: readonly DegradationSeen[] }
  | { readonly ready: false; readonly reasons: readonly string[]; readonly degraded?: readonly DegradationSeen[] };

export function registerHealthRoutes(app: FastifyInstance, readiness: () => Promise<Readiness>): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ ok: true }));
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    const state = await readiness();
    return reply.code(state.ready ? 200 : 503).send(probeAnswerOf(state));
  });
}

function probeAnswerOf(state: Readiness): ProbeAnswer {
  const seen = (state.degraded ?? []).map(inGeneralWords);
  const degraded = seen.length === 0 ? {} : { degraded: seen };
  if (state.ready) return { ready: true, ...degraded };
  // An engine's is said by the engine checks below already.
  const stopping = (state.degraded ?? []).filter((one) => one.stopsRuns && one.kind !== "engine").map((one) => inGeneralWords(one).reason);
  // The backend's own words (RuntimeCheck.unready): an engine, each of several, or a cluster.
  const reasons = state.unready ?? [];
  const all = [...reasons, ...stopping];
  return { ready: false, reasons: all.length === 0 ? ["it cannot run an agent now"] : all, ...degraded };
}

/**
 * A degradation in general words: the range, the routes, the engine's words and the pool's failures
 * are the deployment's own (GET /v1/service shows them to the admin scope).
 */
export function inGeneralWords(one: Degradation): DegradationSeen {
  const engine = JSON.stringify(one.subject);
  const reason = {
    pool: "the warm pool cannot make its containers: Runs start cold",
    "run-network-range": one.stopsRuns
      ? "the Run networks' address range clashes with a network of the host: no Run that needs a network of its own can start"
      : "the Run networks' address range clashes with a network of the host: some Runs that need a network of their own cannot have one",
    engine:
      one.subject === "" ? "the container engine does not answer" : `engine ${engine}: it stopped answering, and no Run goes there until it answers again`,
    "egress-proxy": `engine ${engine}: its egress proxy was found gone, and is started again`,
  }[one.kind];
  return { kind: one.kind, reason, since: one.since };
}
