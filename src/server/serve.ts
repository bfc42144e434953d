// `agentcage serve`: one process that holds the container engine and runs agents for others over
// HTTP. It builds the agent runner (against the stand-in model with `standIn`), rebuilds its Runs
// from the record, sweeps what a crashed predecessor left (at start, then every SWEEP_INTERVAL_MS:
// session stores and kept Runs past their retention), and drains on SIGTERM. With `sessions` the
// runner keeps each Run's CLI session so a later Run can resume it.

import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino, type Logger } from "pino";
import { createAgentRunner, NETWORK_POLICIES, type AgentRunnerOptions, type NetworkPolicy } from "../agents/index.js";
import { connectEgressGateway, MAX_RETENTION_DAYS, startEgressGateway, type EgressGateway, type EgressGatewayConnection } from "../runtime/index.js";
import { AGENT_IMAGE, STAND_IN_CODEX_MODEL, STAND_IN_ENVIRONMENT, standInRunnerOptions, startStandInModel, type RunningStandIn } from "../testing/index.js";
import { buildApp } from "./app.js";
import { DEFAULT_QUEUE_BOUND, DRAIN_GRACE_MS, SERVICE_STOP_GRACE_SECONDS, SWEEP_INTERVAL_MS } from "./limits.js";
import { startPeriodicSweep } from "./periodic-sweep.js";
import { createRunMetrics } from "./metrics.js";
import { createRunService, type RunService } from "./runs.js";

export type ServeOptions = {
  /** Default 127.0.0.1; anything but loopback needs a token from the environment. */
  readonly host?: string;
  /** Default 8750; 0 picks a free port. */
  readonly port?: number;
  /** The service's directory: its records in `service/`, the library's Run directories in `staging/`. */
  readonly runtimeDir: string;
  /** Default agentcage-agent:latest. */
  readonly image?: string;
  /** Runs at once; default 2. */
  readonly slots?: number;
  /** Runs accepted and not ended (waiting or running) past which POST /v1/runs answers 429; default DEFAULT_QUEUE_BOUND, at least `slots`. */
  readonly queueBound?: number;
  /** On stop (SIGTERM): how long running Runs may finish before they are cancelled; default DRAIN_GRACE_MS. */
  readonly drainGraceMs?: number;
  /** Networks every agent joins to reach its model, declared by hand instead of a network policy; default none. Ignored with `standIn`. */
  readonly agentNetworks?: readonly string[];
  /**
   * What every agent may reach (see createAgentRunner's networkPolicy); default "none". Under
   * "model" and "allowlist" the agents reach only the egress proxy: the Operator's (`egress`), or
   * one serve starts and stops itself.
   */
  readonly networkPolicy?: NetworkPolicy;
  /** For "allowlist": the host:port pairs agents may reach through the proxy. */
  readonly allowlist?: readonly string[];
  /** The egress proxy the Operator runs (compose's `egress` service); default: serve starts its own when the policy needs one. */
  readonly egress?: EgressGatewayConnection;
  /** For the proxy serve starts itself: the networks through which it reaches the providers; default ["bridge"]. */
  readonly egressNetworks?: readonly string[];
  /** The container runtime for every agent (e.g. "runsc"); default the engine's. */
  readonly containerRuntime?: string;
  /** Run every agent against the stand-in model (no key needed); default false. */
  readonly standIn?: boolean;
  /**
   * Keep each Run's CLI session in the Staging Directory, so a later POST /v1/runs may resume it
   * with `resumeSession` (`--sessions`; compose turns it on). Default false: nothing of a session
   * outlives its Run, and a request that names one is refused (400). Every caller may resume any
   * session it knows the id of: per-caller scoping comes with tenants.
   */
  readonly sessions?: boolean;
  /**
   * Whole days a kept session store outlives its last use (`--session-retention-days`); the sweep
   * removes it after. 1 to MAX_RETENTION_DAYS; default DEFAULT_SESSION_RETENTION_DAYS (30).
   */
  readonly sessionRetentionDays?: number;
  /**
   * Whole days the service keeps an ended Run's record and artifacts (`service/runs/<id>/`, what GET
   * /v1/runs/<id> and its artifacts answer from) after it ended (`--run-retention-days`); the sweep
   * removes them after, as DELETE does. 1 to MAX_RETENTION_DAYS; default none: kept until a DELETE,
   * since only the caller knows when it has what it needs.
   */
  readonly runRetentionDays?: number;
  /** Between sweeps while the service runs; default SWEEP_INTERVAL_MS (an hour). */
  readonly sweepIntervalMs?: number;
  /** Bytes each agent may write (staging.writableBytes); default the library's DEFAULT_WRITABLE_BYTES. */
  readonly writableBytes?: number;
  /** AGENTCAGE_TOKEN, AGENTCAGE_TOKEN_FILE: default this process's environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
};

export type RunningService = {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly service: RunService;
  /** Where the generated token was written, when none was given. */
  readonly tokenFile?: string;
  /** Drains (no new Runs; running ones get the grace, then are cancelled) and stops. */
  readonly stop: (graceMs?: number) => Promise<void>;
};

export class ServeError extends Error {
  override readonly name = "ServeError";
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
const DAY_MS = 24 * 60 * 60 * 1000;

export async function serve(options: ServeOptions): Promise<RunningService> {
  const env = options.environment ?? process.env;
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? pino({ name: "agentcage-serve" }, pino.destination(2));
  if (!LOOPBACK.has(host) && isIP(host) === 0 && host !== "0.0.0.0")
    throw new ServeError(`--host ${JSON.stringify(host)} is not an address; write an IP address such as 127.0.0.1`);
  const given = await tokenFromEnvironment(env);
  if (given === undefined && !LOOPBACK.has(host)) {
    throw new ServeError(`--host ${JSON.stringify(host)} is reachable from other machines and no token is set; set AGENTCAGE_TOKEN or AGENTCAGE_TOKEN_FILE`);
  }
  const retention = options.sessionRetentionDays;
  const refusedDays = (days: number | undefined) => days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= MAX_RETENTION_DAYS);
  if (refusedDays(retention)) {
    throw new ServeError(
      `--session-retention-days ${String(retention)} is not a whole number of days from 1 to ${MAX_RETENTION_DAYS}; write how many days a session is kept after its last use, e.g. 30`,
    );
  }
  const runRetention = options.runRetentionDays;
  if (refusedDays(runRetention)) {
    throw new ServeError(
      `--run-retention-days ${String(runRetention)} is not a whole number of days from 1 to ${MAX_RETENTION_DAYS}; write how many days an ended Run's record and artifacts are kept, e.g. 90, or leave it out to keep them until DELETE`,
    );
  }
  const sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  if (!Number.isInteger(sweepIntervalMs) || sweepIntervalMs < 1)
    throw new ServeError(`sweepIntervalMs ${JSON.stringify(sweepIntervalMs)} is not a whole number of milliseconds above 0; leave it out for an hour`);
  const slots = options.slots ?? 2;
  const queueBound = options.queueBound ?? Math.max(DEFAULT_QUEUE_BOUND, slots);
  if (queueBound < slots)
    throw new ServeError(`--queue-bound ${queueBound} is below --slots ${slots}: the bound counts running Runs too; give at least ${slots}`);
  const serviceDir = join(options.runtimeDir, "service");
  await mkdir(serviceDir, { recursive: true, mode: 0o700 });
  let tokenFile: string | undefined;
  let token = given;
  if (token === undefined) {
    // On loopback without a token: make one, and say where it is, never what it is.
    token = randomBytes(24).toString("base64url");
    tokenFile = join(serviceDir, "token");
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  }

  let standIn: RunningStandIn | undefined;
  // The library's Run directories in staging/, beside the service's records in service/: a Run's
  // harvestTo (service/runs/<id>/harvest) may not lie inside the runner's Staging Directory.
  const stagingDeclaration = {
    runtimeDir: join(options.runtimeDir, "staging"),
    ...(retention === undefined ? {} : { sessionRetentionDays: retention }),
    ...(options.writableBytes === undefined ? {} : { writableBytes: options.writableBytes }),
  };
  const runnerOptions: AgentRunnerOptions = {
    image: options.image ?? AGENT_IMAGE,
    staging: stagingDeclaration,
    maxConcurrentRuns: slots,
    ...(options.sessions === true ? { sessions: true } : {}),
    ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
    // A cancel answers in seconds whatever the agent does: SIGTERM, then SIGKILL after SERVICE_STOP_GRACE_SECONDS.
    limits: { stopGraceSeconds: SERVICE_STOP_GRACE_SECONDS },
    logger,
  };
  const policy = options.networkPolicy;
  if (policy !== undefined && !(NETWORK_POLICIES as readonly string[]).includes(policy)) {
    throw new ServeError(`--network-policy ${JSON.stringify(policy)} is not a policy; write one of ${NETWORK_POLICIES.join(", ")}`);
  }
  if (policy !== undefined && options.agentNetworks !== undefined) {
    throw new ServeError(
      `--network-policy ${policy} and --agent-network ${options.agentNetworks.join(", ")} were both given; choose a policy, or declare networks by hand, not both`,
    );
  }
  const proxied = policy === "model" || policy === "allowlist";
  let gateway: EgressGateway | undefined;
  if (proxied) {
    const staging = join(options.runtimeDir, "staging");
    await mkdir(staging, { recursive: true, mode: 0o700 });
    try {
      gateway =
        options.egress !== undefined
          ? await connectEgressGateway({ ...options.egress, ...(options.standIn === true ? { codexModel: STAND_IN_CODEX_MODEL } : {}) })
          : await startEgressGateway({
              runtimeDir: staging,
              ...(options.egressNetworks === undefined ? {} : { networks: options.egressNetworks }),
              standIn: options.standIn === true,
              ...(options.standIn === true ? { codexModel: STAND_IN_CODEX_MODEL } : {}),
              logger,
            });
    } catch (error) {
      throw new ServeError(error instanceof Error ? error.message : String(error));
    }
  }
  const networkOptions: Partial<AgentRunnerOptions> =
    gateway !== undefined
      ? { networkPolicy: policy as NetworkPolicy, egress: gateway, ...(options.allowlist === undefined ? {} : { allowlist: options.allowlist }) }
      : policy !== undefined
        ? { networkPolicy: policy }
        : options.agentNetworks === undefined
          ? {}
          : { networks: options.agentNetworks };
  // Two runners on one Staging Directory: a writable Run's Agent Container differs in its work/ mount alone.
  const makeRunner = (extra: Partial<AgentRunnerOptions>) => {
    if (options.standIn === true && gateway !== undefined) {
      // The stand-in is the proxy's upstream: the agents hold tokens, the proxy the stand-in's made-up key.
      return createAgentRunner({ ...runnerOptions, ...networkOptions, environment: STAND_IN_ENVIRONMENT, ...extra });
    }
    if (standIn !== undefined) return createAgentRunner({ ...runnerOptions, ...standInRunnerOptions(standIn), ...extra });
    return createAgentRunner({ ...runnerOptions, ...networkOptions, ...extra });
  };
  let runner;
  let writableRunner;
  try {
    if (options.standIn === true && gateway === undefined) standIn = await startStandInModel("plain", { logger });
    runner = makeRunner({});
    writableRunner = makeRunner({ staging: { ...stagingDeclaration, writableWork: true } });
  } catch (error) {
    await standIn?.stop();
    await gateway?.close();
    throw new ServeError(error instanceof Error ? error.message : String(error));
  }
  const sweepStaging = runner.sweep;
  // The metrics read the service's counts when scraped; the service tells them of each end.
  let service: RunService | undefined;
  const metrics = createRunMetrics(() => service?.counts() ?? { queued: 0, running: 0 });
  service = createRunService({
    runner,
    writableRunner,
    runtimeDir: options.runtimeDir,
    slots,
    sessions: options.sessions === true,
    queueBound,
    onError: (id, error) => logger.error({ runId: id, err: error instanceof Error ? error.message : String(error) }, "a Run's record could not be written"),
    onEnd: (request, outcome) =>
      metrics.ended({
        cli: request.cli,
        reason: outcome.reason,
        durationMs: outcome.durationMs,
        queuedMs: outcome.queuedMs ?? 0,
        ...(outcome.result?.usage === undefined ? {} : { inputTokens: outcome.result.usage.inputTokens, outputTokens: outcome.result.usage.outputTokens }),
        ...(outcome.result?.costUsd === undefined ? {} : { costUsd: outcome.result.costUsd }),
      }),
  });
  // Recovered first: a Run still queued from before holds the session store it will resume, so the
  // sweep of what a crashed predecessor left (and of stores past their retention) leaves that store.
  await service.recover();
  await runner.sweep();
  const runs = service;
  const sweepRecords = async (): Promise<void> => {
    if (runRetention === undefined) return;
    for (const record of await runs.removeEndedBefore(Date.now() - runRetention * DAY_MS)) {
      logger.info(
        { runId: record.id, endedAt: record.endedAt, runRetentionDays: runRetention },
        "sweep removed an ended Run's record and artifacts past their retention",
      );
    }
  };
  // A record that cannot be removed now must not keep the service from starting: the next sweep tries again.
  await sweepRecords().catch((error: unknown) =>
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, "the sweep of ended Runs' records failed"),
  );
  // Then every hour: a service that runs for months must not keep every session, kept Run and record it ever made.
  const sweeper = startPeriodicSweep(
    // The records are swept even when the engine does not answer the Run directories' sweep.
    () => sweepStaging().finally(sweepRecords),
    sweepIntervalMs,
    logger,
  );
  const app = await buildApp({
    service,
    metrics,
    token,
    logger,
    readiness: async () => {
      const checked = await runner.check();
      const counts = (service as RunService).counts();
      return { ready: checked.engine && checked.image, ...checked, slots: { total: slots, ...counts } };
    },
  });
  let url: string;
  try {
    url = await app.listen({ host, port: options.port ?? 8750 });
  } catch (error) {
    // Nothing of a service that never listened is left running: its stand-in goes, its Runs stay queued on disk.
    await app.close().catch(() => undefined);
    await sweeper.stop();
    await standIn?.stop();
    await gateway?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new ServeError(`--port ${options.port ?? 8750} on ${host} is already in use; pick another with --port, or --port 0 for a free one`);
    if (code === "EADDRNOTAVAIL") throw new ServeError(`--host ${JSON.stringify(host)} is not an address of this machine; write one it has, e.g. 127.0.0.1`);
    throw error;
  }
  logger.info({ url, tokenFile }, "agentcage serve is listening");
  return {
    url,
    app,
    service,
    ...(tokenFile === undefined ? {} : { tokenFile }),
    stop: async (graceMs = options.drainGraceMs ?? DRAIN_GRACE_MS) => {
      await service.drain(graceMs);
      await sweeper.stop();
      await app.close();
      await standIn?.stop();
      await gateway?.close();
    },
  };
}

async function tokenFromEnvironment(env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  const direct = env["AGENTCAGE_TOKEN"];
  if (direct !== undefined && direct !== "") return direct;
  const file = env["AGENTCAGE_TOKEN_FILE"];
  if (file === undefined || file === "") return undefined;
  const text = (
    await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new ServeError(`AGENTCAGE_TOKEN_FILE ${JSON.stringify(file)} cannot be read (${error.code}); point it at a file holding the token`);
    })
  ).trim();
  if (text === "") throw new ServeError(`AGENTCAGE_TOKEN_FILE ${JSON.stringify(file)} is empty; write the token into it`);
  return text;
}
