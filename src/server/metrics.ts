// The service's Prometheus metrics, with prom-client, on a registry of its own: Runs by end reason,
// queue depth and running Runs, Run and queue-wait duration histograms, tokens and cost by CLI.
// Served as text at GET /metrics (behind the token, like every route but the health checks).

import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export type RunMetrics = {
  /** A Run ended: its end reason, how long it ran and waited, and what it used. */
  readonly ended: (ended: {
    readonly cli: string;
    readonly reason: string;
    readonly durationMs: number;
    readonly queuedMs: number;
    readonly inputTokens?: number;
    readonly outputTokens?: number;
    readonly costUsd?: number;
  }) => void;
  readonly register: (app: FastifyInstance) => void;
};

const SECONDS_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export function createRunMetrics(counts: () => { readonly queued: number; readonly running: number }): RunMetrics {
  const registry = new Registry();
  const runs = new Counter({
    name: "agentcage_runs_total",
    help: "Runs that ended, by CLI and end reason",
    labelNames: ["cli", "reason"],
    registers: [registry],
  });
  new Gauge({
    name: "agentcage_queue_depth",
    help: "Runs waiting for a slot",
    registers: [registry],
    collect() {
      this.set(counts().queued);
    },
  });
  new Gauge({
    name: "agentcage_runs_running",
    help: "Runs holding a slot",
    registers: [registry],
    collect() {
      this.set(counts().running);
    },
  });
  const duration = new Histogram({
    name: "agentcage_run_duration_seconds",
    help: "A Run's own time, from its slot to its end",
    labelNames: ["cli"],
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const waited = new Histogram({
    name: "agentcage_queue_wait_seconds",
    help: "How long a Run waited for a slot",
    labelNames: ["cli"],
    buckets: SECONDS_BUCKETS,
    registers: [registry],
  });
  const tokens = new Counter({
    name: "agentcage_tokens_total",
    help: "Tokens the agents used, by CLI and direction",
    labelNames: ["cli", "direction"],
    registers: [registry],
  });
  const cost = new Counter({ name: "agentcage_cost_usd_total", help: "What the agents' CLIs reported they cost", labelNames: ["cli"], registers: [registry] });

  return {
    ended: (e) => {
      // What an agent reports is the agent's to write: a negative count must not throw in a counter.
      const amount = (n: number | undefined) => (n === undefined || !Number.isFinite(n) || n < 0 ? undefined : n);
      const [input, output, usd] = [amount(e.inputTokens), amount(e.outputTokens), amount(e.costUsd)];
      runs.inc({ cli: e.cli, reason: e.reason });
      duration.observe({ cli: e.cli }, Math.max(0, e.durationMs) / 1000);
      waited.observe({ cli: e.cli }, Math.max(0, e.queuedMs) / 1000);
      if (input !== undefined) tokens.inc({ cli: e.cli, direction: "input" }, input);
      if (output !== undefined) tokens.inc({ cli: e.cli, direction: "output" }, output);
      if (usd !== undefined) cost.inc({ cli: e.cli }, usd);
    },
    register: (app) => {
      app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
    },
  };
}
