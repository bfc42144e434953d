// The Prometheus metrics of the service: Runs, the pool, the engines and degradations.
// Invariant: exports only, no code.
export type { BackendSeries, RunMetrics, TenantCounts } from "./metrics.js";
export { createRunMetrics } from "./metrics.js";
export { engineSeries } from "./metrics-engines.js";
