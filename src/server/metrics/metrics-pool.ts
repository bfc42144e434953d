// The warm pool's series on /metrics: its gauges and counters read from the runner's pool() figures
// at each scrape (the pool keeps the counts; a second count here could only drift from them), and the
// claim-latency histogram, fed one warm Run at a time by the pool's onClaim. Registered only when the
// service has a pool. None carries a tenant label: the pool is the service's, so /metrics shows its
// samples to the admin scope alone, as GET /v1/pool does.

import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { PoolStats } from "../../runtime/index.js";

/** From a fast claim (a few ms: the claim written to a running container) to a slow one on a loaded engine. */
const CLAIM_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2];

/** Registers the pool's series on `registry`; answers what to call with each warm Run's claim latency. */
export function registerPoolMetrics(registry: Registry, stats: () => PoolStats | undefined): (latencyMs: number) => void {
  const gauge = (name: string, help: string, read: (s: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(stats() ?? EMPTY));
      },
    });
  const counter = (name: string, help: string, read: (s: PoolStats) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(stats() ?? EMPTY));
      },
    });
  gauge("agentcage_pool_size", "Agent containers the warm pool keeps ready or being made (serve --pool)", (s) => s.size);
  gauge("agentcage_pool_ready", "Pooled agent containers started and waiting for a Run", (s) => s.ready);
  gauge("agentcage_pool_making", "Pooled agent containers being made now", (s) => s.making);
  counter("agentcage_pool_claimed_total", "Runs served warm, by a container started ahead", (s) => s.claimed);
  counter("agentcage_pool_replaced_total", "Pooled containers replaced: idle past --pool-idle-seconds, or stopped before their Run", (s) => s.replaced);
  counter("agentcage_pool_failures_total", "Pooled containers that could not be made (GET /v1/pool says the last reason)", (s) => s.failures);
  new Counter({
    name: "agentcage_pool_head_starts_total",
    help: "Warm Runs whose container had started claude ahead: handed it (used), or served with it killed first (wasted: another argv)",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      this.reset();
      const heads = stats()?.headStarts;
      if (heads === undefined) return;
      this.inc({ outcome: "used" }, heads.used);
      this.inc({ outcome: "wasted" }, heads.wasted);
    },
  });
  new Counter({
    name: "agentcage_pool_cold_total",
    help: "Runs of the pooled runner served cold, by why (empty: no container was ready)",
    labelNames: ["why"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [why, count] of Object.entries(stats()?.cold ?? {})) this.inc({ why }, count);
    },
  });
  const claimSeconds = new Histogram({
    name: "agentcage_pool_claim_seconds",
    help: "A warm Run's claim: from its slot to its claim written to the container started ahead",
    buckets: CLAIM_SECONDS_BUCKETS,
    registers: [registry],
  });
  return (latencyMs) => {
    if (Number.isFinite(latencyMs) && latencyMs >= 0) claimSeconds.observe(latencyMs / 1000);
  };
}

const EMPTY: PoolStats = { size: 0, maxIdleSeconds: 0, ready: 0, making: 0, claimed: 0, cold: {}, replaced: 0, failures: 0, claimLatencyMs: { count: 0 } };
