// The engines' series on /metrics, with several engines (`--engine`): whether each answers, whether it
// is slow (its ping late) and how often it was, whether it is drained, its Runs and its slots, read
// from the engine set at each scrape. None carries a tenant
// label: the engines are the service's, so /metrics shows them to the admin scope alone.

import { Counter, Gauge, type Registry } from "prom-client";
import type { EngineStatus } from "../../runtime/index.js";
import type { BackendSeries } from "./metrics.js";

/** The engines' series, as the backend of several engines adds them (serve-backend.ts). */
export function engineSeries(status: () => readonly EngineStatus[]): BackendSeries {
  return (registry) => registerEngineMetrics(registry, status);
}

export function registerEngineMetrics(registry: Registry, status: () => readonly EngineStatus[]): void {
  const gauge = (name: string, help: string, read: (s: EngineStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["engine"],
      registers: [registry],
      collect() {
        this.reset();
        for (const one of status()) this.set({ engine: one.name }, read(one));
      },
    });
  gauge("agentcage_engine_up", "1 when the engine answered its last ping", (s) => (s.answers ? 1 : 0));
  gauge("agentcage_engine_slow", "1 while the engine's ping is late: it is waited for, and its Runs go on", (s) => (s.slow ? 1 : 0));
  new Counter({
    name: "agentcage_engine_late_pings_total",
    help: "Pings of the engine that outlasted their bound (stretched by the load): a slow engine, never drained for it",
    labelNames: ["engine"],
    registers: [registry],
    collect() {
      this.reset();
      for (const one of status()) this.inc({ engine: one.name }, one.latePings);
    },
  });
  gauge("agentcage_engine_drained", "1 while the engine is drained: no Run goes to it", (s) => (s.drained ? 1 : 0));
  gauge("agentcage_engine_runs_running", "Runs on the engine now", (s) => s.running);
  gauge("agentcage_engine_slots", "Runs the engine may run at once", (s) => s.slots);
}
