// What makes the service less than it says, on /metrics: how many degradations of each kind hold
// now, and how many have begun since the start (so one that came and went between two scrapes, an
// egress proxy restarted, still shows). Every kind always has its samples, 0 when none; the reasons
// stay in GET /v1/service and the log, not in labels. No tenant label: the admin scope's alone.

import { Counter, Gauge, type Registry } from "prom-client";
import { DEGRADATION_KINDS, type DegradationView } from "../../runtime/index.js";

export function registerDegradationMetrics(registry: Registry, view: DegradationView): void {
  new Gauge({
    name: "agentcage_degraded",
    help: "Degradations holding now, by kind (pool, run-network-range, engine, egress-proxy): GET /v1/service says why and the fix",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      const held = view.list();
      for (const kind of DEGRADATION_KINDS) this.set({ kind }, held.filter((one) => one.kind === kind).length);
    },
  });
  new Counter({
    name: "agentcage_degradations_total",
    help: "Degradations begun since the service started, by kind",
    labelNames: ["kind"],
    registers: [registry],
    collect() {
      this.reset();
      const begun = view.begun();
      for (const kind of DEGRADATION_KINDS) this.inc({ kind }, begun[kind]);
    },
  });
}
