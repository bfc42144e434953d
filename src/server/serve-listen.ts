// serve's HTTP face: the app over the Runs (app.ts), its readiness read from the runner (its checks
// and its degradations) and the Runs' counts, and its listening. A service that cannot listen leaves nothing running: the app,
// the sweep, the runners' warm pool and their assembly (its stand-in, its egress proxy) are closed
// before the refusal, and its Runs stay queued on disk for the next start.

import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { AgentRunner } from "../runner/index.js";
import { buildApp } from "./app.js";
import type { Feed } from "./feed.js";
import type { RunMetrics } from "./metrics.js";
import type { ServiceFacts } from "./route-service.js";
import type { PeriodicSweep } from "./periodic-sweep.js";
import type { Lifecycle, ResolvedQuotas, RunService } from "./runs.js";
import type { Tenancy } from "./tenancy.js";
import { ServeError } from "./serve-options.js";
import type { ServiceRunners } from "./serve-runners.js";

export type ServiceAppOptions = {
  readonly service: RunService;
  readonly metrics: RunMetrics;
  readonly runner: AgentRunner;
  readonly slots: number;
  readonly token: string;
  readonly logger: Logger;
  readonly tenancy: Tenancy;
  readonly feed: Feed;
  readonly quotasOf: (tenant: string) => ResolvedQuotas;
  readonly allowPrivateCallbacks: boolean;
  readonly onLifecycle: (listener: (change: Lifecycle) => void) => void;
  readonly facts: ServiceFacts;
};

export function buildServiceApp(options: ServiceAppOptions): Promise<FastifyInstance> {
  const { service, runner, slots } = options;
  return buildApp({
    service,
    metrics: options.metrics,
    token: options.token,
    logger: options.logger,
    tenancy: options.tenancy,
    feed: options.feed,
    quotasOf: options.quotasOf,
    allowPrivateCallbacks: options.allowPrivateCallbacks,
    onLifecycle: options.onLifecycle,
    facts: options.facts,
    pool: runner.pool,
    readiness: async () => {
      const checked = await runner.check();
      // Both runners share one board (the assembly's): the pooled runner's is the service's.
      const degraded = runner.degradations.list();
      const ready = checked.engine && checked.image && !degraded.some((one) => one.stopsRuns);
      return { ready, ...checked, slots: { total: slots, ...service.counts() }, degraded };
    },
  });
}

/** What a service that never listened closes. */
export type Started = { readonly sweeper: PeriodicSweep; readonly runners: Pick<ServiceRunners, "close"> };

/** Listens on `host`:`port` and answers the URL; a port in use or an address not this machine's is a ServeError. */
export async function listenOrClose(app: FastifyInstance, host: string, port: number, started: Started): Promise<string> {
  try {
    return await app.listen({ host, port });
  } catch (error) {
    // Nothing of a service that never listened is left running: its stand-in goes, its Runs stay queued on disk.
    await app.close().catch(() => undefined);
    await started.sweeper.stop();
    await started.runners.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new ServeError(`--port ${port} on ${host} is already in use; pick another with --port, or --port 0 for a free one`);
    if (code === "EADDRNOTAVAIL") throw new ServeError(`--host ${JSON.stringify(host)} is not an address of this machine; write one it has, e.g. 127.0.0.1`);
    throw error;
  }
}
