// The service's Runs and its metrics, made together: the metrics read the Runs' counts by tenant when
// they are scraped, and the Runs tell the metrics of each end (a Run cancelled while queued too). A Run
// whose record cannot be written is logged with its runId, never thrown at a caller.

import type { Logger } from "pino";
import type { AgentRunner } from "../../runner/index.js";
import { createRunMetrics, type BackendSeries, type RunMetrics, type TenantCounts } from "../metrics/index.js";
import type { Lifecycle, ResolvedQuotas, RunEnd, RunService, RunServiceOptions, ServiceRunRequest } from "../runs/index.js";
import { createRunService } from "../runs/index.js";
import type { RunFiles, RunRecord, RunStore } from "../runs/index.js";

export type MeteredRuns = { readonly service: RunService; readonly metrics: RunMetrics };

export type MeteredRunsOptions = {
  readonly runner: AgentRunner;
  readonly writableRunner: AgentRunner;
  readonly store: RunStore;
  readonly files: RunFiles;
  readonly slots: number;
  readonly queueBound: number;
  readonly sessions: boolean;
  readonly logger: Logger;
  readonly quotasOf: (tenant: string) => ResolvedQuotas;
  readonly onLifecycle?: (change: Lifecycle) => void;
  /** The Run Backend's own series for the metrics (each engine's, over several); default none. */
  readonly backendSeries?: BackendSeries;
  readonly callbackRefusal?: NonNullable<RunServiceOptions["callbackRefusal"]>;
  readonly requestRefusal?: NonNullable<RunServiceOptions["requestRefusal"]>;
};

export function createMeteredRuns(options: MeteredRunsOptions): MeteredRuns {
  const { logger, backendSeries: _backendSeries, ...runs } = options;
  // The metrics read the service's counts when scraped; the service tells them of each end.
  let service: RunService | undefined;
  // The pool's series only when the runner has a pool (pool() answers from its construction on).
  const metrics = createRunMetrics(
    () => countsByTenant(service?.live() ?? [], service?.tenants() ?? []),
    options.runner.pool() === undefined ? undefined : options.runner.pool,
    options.backendSeries,
    // One board for both runners (the assembly's): the pooled runner's view is the service's.
    options.runner.degradations,
  );
  service = createRunService({
    ...runs,
    onError: (id, error) => logger.error({ runId: id, err: error instanceof Error ? error.message : String(error) }, "a Run's record could not be written"),
    onEnd: (request, outcome, tenant) => metrics.ended({ tenant, ...endOf(request, outcome) }),
    onAgentEvent: (event, tenant) => {
      if (event.type === "egress_slow") metrics.egressSlow(tenant);
    },
  });
  return { service, metrics };
}

/** How many Runs wait (queued) and hold a slot (starting or running), for each tenant that has a Run: from the Runs that have not ended. */
function countsByTenant(live: readonly RunRecord[], tenants: readonly string[]): TenantCounts {
  const counts = new Map<string, { queued: number; running: number }>(tenants.map((tenant) => [tenant, { queued: 0, running: 0 }]));
  for (const record of live) {
    const count = counts.get(record.tenant) ?? { queued: 0, running: 0 };
    counts.set(record.tenant, count);
    if (record.state === "queued") count.queued += 1;
    else if (record.state === "starting" || record.state === "running") count.running += 1;
  }
  return counts;
}

/** What the metrics count of one end: its CLI and end reason, its times, the tokens and cost its agent reported. */
function endOf(request: ServiceRunRequest, outcome: RunEnd): Omit<Parameters<RunMetrics["ended"]>[0], "tenant"> {
  return {
    cli: request.cli,
    reason: outcome.reason,
    durationMs: outcome.durationMs,
    queuedMs: outcome.queuedMs ?? 0,
    ...(outcome.result?.usage === undefined ? {} : { inputTokens: outcome.result.usage.inputTokens, outputTokens: outcome.result.usage.outputTokens }),
    ...(outcome.result?.costUsd === undefined ? {} : { costUsd: outcome.result.costUsd }),
  };
}
