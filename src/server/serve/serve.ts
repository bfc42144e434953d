// `agentcage serve`: one process that holds the container engine and runs agents for others over
// HTTP, as named steps, each in a file of its own: check the options (serve-options.ts), hold its
// address (serve-listen.ts), assemble the runners (serve-runners.ts), make the Runs and their
// metrics (serve-runs.ts), recover them and sweep (serve-sweep.ts), resume the webhooks still owed
// (webhooks.ts), build the app and listen (serve-listen.ts). stop() drains, then closes.
// Invariant: what can refuse the start (options, address, runtime directory, the records) is
// checked before any container starts; a start that ends early stops all it made (serve-startup.ts).

import { randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { AGENT_IMAGE, agentcageVersion } from "../../runner/index.js";
import { DRAIN_GRACE_MS, STOP_CONNECTIONS_GRACE_MS } from "../limits.js";
import type { RunMetrics } from "../metrics/index.js";
import type { RunService } from "../runs/index.js";
import { buildServiceApp, holdAddress, listenOn } from "./serve-listen.js";
import { startUp, stoppedWhileStarting } from "./serve-startup.js";
import { OPERATOR_TENANT } from "../caller.js";
import type { Lifecycle, ResolvedQuotas } from "../runs/index.js";
import { checkServeOptions, type CheckedOptions, type ServeOptions } from "./serve-options.js";
import { openFileStore, openPostgresStore, type StoreErrors } from "./service-store.js";
import type { Tenancy } from "../tenancy/index.js";
import { assembleServiceRunners } from "./serve-runners.js";
import { egressView } from "../http/index.js";
import { createMeteredRuns } from "./serve-runs.js";
import { recoverThenSweep } from "./serve-sweep.js";
import { callbackRefusal } from "../webhooks/index.js";
import { createWebhooks } from "../webhooks/index.js";
import { requestRefusalOf } from "./serve-kubernetes.js";

export type RunningService = {
  /** Where it listens; "" when it was started with listen: false. */
  readonly url: string;
  readonly app: FastifyInstance;
  readonly service: RunService;
  /** Where the generated token was written, when none was given. */
  readonly tokenFile?: string;
  /** Drains (no new Runs; running ones get the grace, then are cancelled) and stops. */
  readonly stop: (graceMs?: number) => Promise<void>;
};

export async function serve(options: ServeOptions): Promise<RunningService> {
  const startedAt = new Date().toISOString();
  const logger = options.logger ?? pino({ name: "agentcage-serve" }, pino.destination(2));
  const checked = await checkServeOptions(options);
  // Each step that may wait on the disk or the engine is said while it runs long: which one holds the start.
  const start = startUp(options.signal, (step, waitedMs) => logger.warn({ step, waitedMs }, `agentcage serve is still starting: ${step}`));
  try {
    const serviceDir = join(options.runtimeDir, "service");
    await mkdir(serviceDir, { recursive: true, mode: 0o700 });
    const listens = options.listen !== false;
    // Nothing listens without HTTP: a token no one can use is neither needed nor written.
    const { token, tokenFile } = listens
      ? await serviceToken(checked.token, serviceDir)
      : { token: randomBytes(24).toString("base64url"), tokenFile: undefined };
    // The store, made once here and handed to the Runs, the webhooks and the app (tenancy, feed).
    const storeErrors: StoreErrors = {
      onAuditError: (error) => logger.error({ err: error instanceof Error ? error.message : String(error) }, "the audit log could not be written"),
      onFeedError: (error) => logger.error({ err: error instanceof Error ? error.message : String(error) }, "the events feed could not be written"),
    };
    const store = await start.during(
      "reading the Run records",
      options.store === undefined ? openFileStore(options.runtimeDir, storeErrors) : openPostgresStore(options.runtimeDir, options.store, storeErrors),
    );
    const { tenancy, feed } = store;
    start.made(async () => {
      await store.flush();
      await store.close();
    });
    const port = options.port ?? 8750;
    const address = listens ? await holdAddress(checked.host, port) : undefined;
    start.made(() => address?.release());
    start.goOn();
    const quotasOf = tenantQuotas(tenancy, checked);
    // The pool's claims feed the metrics, which are made with the Runs below (they read the runner's pool): a late binding.
    let metricsOfClaims: RunMetrics | undefined;
    const runners = await start.during(
      "starting the runners and what their Runs reach (the egress proxy, the stand-in)",
      assembleServiceRunners(options, checked.slots, logger, (latencyMs) => metricsOfClaims?.poolClaimed(latencyMs)),
    );
    // The pool's members go before the proxy they are joined to.
    start.made(() => runners.close());
    start.goOn();
    const { assembly, runner, writableRunner } = runners;
    // Who hears of each step of every Run's life: the events feed, the webhooks, A2A's push notification configs.
    const lifecycle: Array<(change: Lifecycle) => void> = [feed.append];
    const allowPrivate = options.allowPrivateCallbacks === true;
    const webhooks = createWebhooks({
      store: store.runs,
      tenants: tenancy.tenants,
      allowPrivate,
      logger,
      ...(options.webhookRetries === undefined ? {} : { schedule: options.webhookRetries }),
    });
    start.made(() => webhooks.stop());
    lifecycle.push(webhooks.listener);
    const { service, metrics } = createMeteredRuns({
      quotasOf,
      callbackRefusal: callbackRefusal(tenancy.tenants, allowPrivate),
      requestRefusal: requestRefusalOf(runner.backend),
      onLifecycle: (change) => {
        for (const listener of lifecycle) listener(change);
      },
      runner,
      writableRunner,
      backendSeries: runners.backend.series,
      store: store.runs,
      files: store.files,
      slots: checked.slots,
      sessions: options.sessions === true,
      queueBound: checked.queueBound,
      logger,
    });
    metricsOfClaims = metrics;
    // Runs recovered from the records may start from here on: a start that ends early drains them at once.
    start.made(() => service.drain(0));
    const sweeper = await start.during(
      "recovering the Runs of before and sweeping what they left on the engine",
      recoverThenSweep({ service, runner, runRetentionDays: options.runRetentionDays, intervalMs: checked.sweepIntervalMs, logger }),
    );
    start.made(() => sweeper.stop());
    await start.during("resuming the webhooks still owed", webhooks.resume());
    start.goOn();
    const app = await start.during(
      "building the HTTP app",
      buildServiceApp({
        service,
        metrics,
        runner,
        slots: checked.slots,
        token,
        logger,
        tenancy,
        quotasOf,
        feed,
        allowPrivateCallbacks: allowPrivate,
        onLifecycle: (listener) => lifecycle.push(listener),
        facts: {
          version: agentcageVersion(),
          startedAt,
          agentImage: options.image ?? AGENT_IMAGE,
          standIn: options.standIn === true,
          egress: egressView({
            ...(options.networkPolicy === undefined ? {} : { networkPolicy: options.networkPolicy }),
            ...(options.agentNetworks === undefined ? {} : { agentNetworks: options.agentNetworks }),
            connected: options.egress !== undefined,
            gateway: assembly.gateway,
            gateways: assembly.gateways,
          }),
        },
      }),
    );
    start.made(() => closeApp(app));
    const url = address === undefined ? "" : await start.during("listening", listenOn(app, checked.host, port, address));
    // A stop heard while it began to listen: the caller, who asked for it, never gets a service to stop.
    if (options.signal?.aborted === true) throw stoppedWhileStarting(options.signal);
    if (listens) logger.info({ url, tokenFile }, "agentcage serve is listening");
    return {
      url,
      app,
      service,
      ...(tokenFile === undefined ? {} : { tokenFile }),
      stop: async (graceMs = options.drainGraceMs ?? DRAIN_GRACE_MS) => {
        await service.drain(graceMs);
        await webhooks.stop();
        await sweeper.stop();
        await closeApp(app);
        // The pool's members go before the proxy they are joined to; no Run is under way after the drain.
        await runners.close();
        await store.flush();
        await store.close();
      },
    };
  } catch (error) {
    await start.undo();
    throw error;
  }
}

/** A tenant's quotas as they hold now: its own where the Operator set them, else the service's defaults (the Operator's tenant: the whole service). */
function tenantQuotas(tenancy: Tenancy, checked: CheckedOptions): (tenant: string) => ResolvedQuotas {
  const whole: ResolvedQuotas = { maxRunning: checked.slots, maxQueued: checked.queueBound };
  return (tenant) => {
    const defaults = tenant === OPERATOR_TENANT ? whole : checked.tenantDefaults;
    return { ...defaults, ...(tenancy.tenants.get(tenant)?.quotas ?? {}) };
  };
}

/**
 * The token given, or (on loopback only: the options' check refuses any other host without one) one
 * made here and written to service/token, so the log says where it is, never what it is.
 */
async function serviceToken(given: string | undefined, serviceDir: string): Promise<{ readonly token: string; readonly tokenFile?: string }> {
  if (given !== undefined) return { token: given };
  const token = randomBytes(24).toString("base64url");
  const tokenFile = join(serviceDir, "token");
  await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  return { token, tokenFile };
}

/**
 * Closes the app: no new connection, idle ones at once (Node's close), and after
 * STOP_CONNECTIONS_GRACE_MS every one still open, whatever it holds (a slow upload, a keep-alive
 * client caught mid-request), since the Runs it could be about are drained by then.
 */
async function closeApp(app: FastifyInstance): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), STOP_CONNECTIONS_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
