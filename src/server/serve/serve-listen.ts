// serve's HTTP face: the app over the Runs (app.ts), its readiness read from the runner (its checks
// and its degradations) and the Runs' counts, and its address. The address is taken first
// (holdAddress), before serve starts any container, so a port in use or an address not this
// machine's is refused at once; it is handed to the app as it listens. A refusal is a ServeError
// naming --port or --host.

import { createServer } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { AgentRunner } from "../../runner/index.js";
import { buildApp } from "./app.js";
import type { Feed } from "../runs/index.js";
import type { RunMetrics } from "../metrics/index.js";
import type { ServiceFacts } from "../http/index.js";
import type { Lifecycle, ResolvedQuotas, RunService } from "../runs/index.js";
import type { Tenancy } from "../tenancy/index.js";
import { ServeError } from "./serve-options.js";

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

/** The address serve holds from its first steps until its app listens there. */
export type HeldAddress = {
  /** Lets go of it, for the app to listen there at once. Idempotent. */
  readonly release: () => Promise<void>;
};

/**
 * Takes `host`:`port` now, so that nothing is started for a service that could not listen; port 0
 * (any free one) holds nothing, since the app is given whichever is free when it listens.
 */
export async function holdAddress(host: string, port: number): Promise<HeldAddress> {
  if (port === 0) return { release: async () => undefined };
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host, port }, resolve);
    });
  } catch (error) {
    throw listenRefusal(error, host, port);
  }
  let released: Promise<void> | undefined;
  return { release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))) };
}

/** Listens on `host`:`port` (the address held, let go of first) and answers the URL; a port in use or an address not this machine's is a ServeError. */
export async function listenOn(app: FastifyInstance, host: string, port: number, held: HeldAddress): Promise<string> {
  await held.release();
  try {
    return await app.listen({ host, port });
  } catch (error) {
    throw listenRefusal(error, host, port);
  }
}

/** The refusal of an address the service cannot listen on, in the command's words; any other error as it was. */
function listenRefusal(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE") return new ServeError(`--port ${port} on ${host} is already in use; pick another with --port, or --port 0 for a free one`);
  if (code === "EADDRNOTAVAIL") return new ServeError(`--host ${JSON.stringify(host)} is not an address of this machine; write one it has, e.g. 127.0.0.1`);
  return error;
}
