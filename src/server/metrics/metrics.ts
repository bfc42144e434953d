// The service's Prometheus metrics, with prom-client, on a registry of its own: Runs by end reason,
// queue depth and running Runs, Run and queue-wait duration histograms, tokens and cost by CLI, each
// series by tenant; with a warm pool, its series too (metrics-pool.ts); the Run Backend's own (several engines: metrics-engines.ts);
// what makes the service less than it says (metrics-degradations.ts). Served as text at GET /metrics
// (behind a key, like every route but the health checks): the admin scope reads every series, any
// other key only its own tenant's, never another's name.

import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { DegradationView, PoolStats } from "../../runtime/index.js";
import type { Caller } from "../caller.js";
import { registerPoolMetrics } from "./metrics-pool.js";
import { registerDegradationMetrics } from "./metrics-degradations.js";

export type RunMetrics = {
  /** A Run ended: its end reason, how long it ran and waited, and what it used. */
  readonly ended: (ended: {
    readonly tenant: string;
    readonly cli: string;
    readonly reason: string;
    readonly durationMs: number;
    readonly queuedMs: number;
    readonly inputTokens?: number;
    readonly outputTokens?: number;
    readonly costUsd?: number;
  }) => void;
  /** A Run's reading of its egress proxy's meter was late (an `egress_slow` event): the proxy lives, and is slow. */
  readonly egressSlow: (tenant: string) => void;
  /** A warm Run's claim took this many ms (the pool's onClaim); nothing without a pool. */
  readonly poolClaimed: (latencyMs: number) => void;
  readonly register: (app: FastifyInstance) => void;
};

const SECONDS_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** How many Runs wait and hold a slot, for each tenant that has any Run. */
export type TenantCounts = ReadonlyMap<string, { readonly queued: number; readonly running: number }>;

/** Registers a Run Backend's own series (each engine's, over several), read at each scrape. */
export type BackendSeries = (registry: Registry) => void;

/**
 * `pool`: the warm pool's figures, read at each scrape; undefined when the service has none, and then
 * no pool series is served at all (a series of zeros would read as a pool that is empty, and alert so).
 */
export function createRunMetrics(
  counts: () => TenantCounts,
  pool?: () => PoolStats | undefined,
  backendSeries?: BackendSeries,
  degradations?: DegradationView,
): RunMetrics {
  const registry = new Registry();
  const poolClaimed = pool === undefined ? undefined : registerPoolMetrics(registry, pool);
  backendSeries?.(registry);
  if (degradations !== undefined) registerDegradationMetrics(registry, degradations);
  const runs = new Counter({
    name: "agentcage_runs_total",
    help: "Runs that ended, by CLI and end reason",
    labelNames: ["cli", "reason", "tenant"],
    registers: [registry],
  });
  new Gauge({
    name: "agentcage_queue_depth",
    help: "Runs waiting for a slot, by tenant",
    labelNames: ["tenant"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, count] of counts()) this.set({ tenant }, count.queued);
    },
  });
  new Gauge({
    name: "agentcage_runs_running",
    help: "Runs holding a slot, by tenant",
    labelNames: ["tenant"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [tenant, count] of counts()) this.set({ tenant }, count.running);
    },
  });
  const duration = new Histogram({
    name: "agentcage_run_duration_seconds",
    help: "A Run's own time, from its slot to its end",
    labelNames: ["cli", "tenant"],
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const waited = new Histogram({
    name: "agentcage_queue_wait_seconds",
    help: "How long a Run waited for a slot",
    labelNames: ["cli", "tenant"],
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const tokens = new Counter({
    name: "agentcage_tokens_total",
    help: "Tokens the agents used, by CLI and direction",
    labelNames: ["cli", "direction", "tenant"],
    registers: [registry],
  });
  const egressSlow = new Counter({
    name: "agentcage_egress_slow_readings_total",
    help: "Readings of the egress proxy's meter that were late (the proxy lived, and was slow): each told once as a Run's egress_slow event",
    labelNames: ["tenant"],
    registers: [registry],
  });
  const cost = new Counter({
    name: "agentcage_cost_usd_total",
    help: "What the agents' CLIs reported they cost",
    labelNames: ["cli", "tenant"],
    registers: [registry],
  });

  return {
    ended: (e) => {
      // What an agent reports is the agent's to write: a negative count must not throw in a counter.
      const amount = (n: number | undefined) => (n === undefined || !Number.isFinite(n) || n < 0 ? undefined : n);
      const [input, output, usd] = [amount(e.inputTokens), amount(e.outputTokens), amount(e.costUsd)];
      const { cli, tenant } = e;
      runs.inc({ cli, reason: e.reason, tenant });
      duration.observe({ cli, tenant }, Math.max(0, e.durationMs) / 1000);
      waited.observe({ cli, tenant }, Math.max(0, e.queuedMs) / 1000);
      if (input !== undefined) tokens.inc({ cli, direction: "input", tenant }, input);
      if (output !== undefined) tokens.inc({ cli, direction: "output", tenant }, output);
      if (usd !== undefined) cost.inc({ cli, tenant }, usd);
    },
    egressSlow: (tenant) => egressSlow.inc({ tenant }),
    poolClaimed: (latencyMs) => poolClaimed?.(latencyMs),
    register: (app) => {
      app.get("/metrics", { schema: { hide: true } }, async (request, reply) =>
        reply.type(registry.contentType).send(seriesFor(request.caller, await registry.metrics())),
      );
    },
  };
}

/** The exposition as a caller may read it: all of it with the admin scope; else every HELP and TYPE line, and the series of its own tenant only. */
export function seriesFor(caller: Caller, text: string): string {
  if (caller.scope === "admin") return text;
  return text
    .split("\n")
    .filter((line) => line === "" || line.startsWith("#") || tenantOf(line) === caller.tenant)
    .join("\n");
}

/** The `tenant` label of one sample line (`name{a="x",tenant="t"} 1`), read label by label so no other label's value can pass for it. */
function tenantOf(sample: string): string | undefined {
  const labels = /^[a-zA-Z_:][a-zA-Z0-9_:]*\{(.*)\}\s/.exec(sample)?.[1];
  if (labels === undefined) return undefined;
  for (const [, name, value] of labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) if (name === "tenant") return value;
  return undefined;
}
