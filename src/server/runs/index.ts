// The Runs: the Run Store (file, Postgres or memory), the run service's queue, submit, transitions, the feed
// and quotas. Invariant: knows neither HTTP nor tenants' keys; exports only, no code.
export type { Feed, FeedEntry } from "./feed.js";
export { createMemoryFeed, openFeed } from "./feed.js";
export type { QuotaRefusal } from "./quotas.js";
export { quotaMessage } from "./quotas.js";
export type { Lifecycle, LifecycleType, ResolvedQuotas, ServiceRunRequest } from "./run-service-options.js";
export type { Admitted, InputsWriter, KeyReused, Listener, Refused, RunEnd, RunService, RunServiceOptions, Unserved } from "./runs.js";
export { createRunService } from "./runs.js";
export { createFileRunFiles, fileRuns, readFileRunStore, runsDirectory } from "./store-files.js";
export { memoryRuns } from "./store-memory.js";
export type { PostgresRunStore } from "./store-postgres.js";
export { createPostgresRunStore, maskedStoreUrl } from "./store-postgres.js";
export type { RunFiles, RunRecord, RunState, RunStore, StoredDelivery, StoredEvent } from "./store.js";
export { RUN_STATES, TERMINAL_STATES } from "./store.js";
export { runsFor } from "./tenant-runs.js";
export type { TenantUsage, Totals } from "./usage.js";
export { startOfTodayUtc, totalsSchema, zeroTotals } from "./usage.js";
