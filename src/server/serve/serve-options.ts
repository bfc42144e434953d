// What `agentcage serve` is told, and the refusals of what cannot mean anything, decided before
// serve writes or starts anything (a network policy is checked with the runners it shapes, in
// serve-runners.ts). A refusal is a ServeError that names the option as the command spells it and
// says what to write instead. A host other than loopback is never served without a token.

import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import type { Logger } from "pino";
import { MAX_RETENTION_DAYS } from "../../container/index.js";
import { AgentcageError } from "../../errors/index.js";
import type { EgressGatewayConnection } from "../../gateway/index.js";
import { assemblyRefusal, bothPolicyAndNetworks, NETWORK_POLICIES, type AssemblyStep, type AssemblyWaiting, type NetworkPolicy } from "../../runner/index.js";
import {
  DEFAULT_POOL_IDLE_SECONDS,
  MAX_POOL_IDLE_SECONDS,
  MAX_POOL_SIZE,
  refusalsOf,
  RUN_FILES,
  type KubernetesBackend,
  type RunFiles,
} from "../../runtime/index.js";
import { canBoundWrites } from "../../staging/index.js";
import { DEFAULT_QUEUE_BOUND, DEFAULT_SLOTS, MAX_SLOTS, SWEEP_INTERVAL_MS } from "../limits.js";
import { serveRefusal } from "./serve-kubernetes.js";
import { maskedStoreUrl } from "../runs/index.js";
import type { ResolvedQuotas } from "../runs/index.js";
import type { RetrySchedule } from "../webhooks/index.js";

export type ServeOptions = {
  /** Default 127.0.0.1; anything but loopback needs a token from the environment. */
  readonly host?: string;
  /** Default 8750; 0 picks a free port. */
  readonly port?: number;
  /**
   * Default true. false: no HTTP at all; the Runs are spoken to in-process, through `service` (as
   * `agentcage mcp` does over stdio). Nothing listens, and no token is made or written.
   */
  readonly listen?: boolean;
  /** The service's directory: its records in `service/`, the library's Run directories in `staging/`. */
  readonly runtimeDir: string;
  /**
   * Where the Run Store is (`--store`, AGENTCAGE_STORE): a `postgres://` or `postgresql://` URL keeps
   * the Runs' records, requests, events, Outcomes, deliveries and idempotency keys in that database
   * (its password best in PGPASSWORD, never in an argv). The tenants, API keys, audit log and events
   * feed stay in files under runtimeDir either way, and so do the Run directories' inputs and Harvest.
   * Default: the file store, under runtimeDir.
   */
  readonly store?: string;
  /** Default agentcage-agent:latest. */
  readonly image?: string;
  /** Runs at once, 1 to MAX_SLOTS; default DEFAULT_SLOTS, what this host's memory holds at each Run's memory limit. */
  readonly slots?: number;
  /**
   * Several engines (`--engine`), each `ADDRESS[,name=NAME][,slots=N][,certs=DIR]` (the library's
   * parseEngineSpec): each Run goes to one that answers and holds the image, with the most free
   * slots; `slots` stays the service's total, and an engine's own slots= caps it (default `slots`).
   * Under "model" and "allowlist", serve starts an egress proxy on each engine (not with `egress`);
   * not with agentNetworks nor a pool. Default: the one engine (DOCKER_HOST, else the local socket).
   */
  readonly engines?: readonly string[];
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
  /** The IPv4 range each Run's own network takes a /28 of (under model, allowlist, open); default 10.213.0.0/16. */
  readonly runNetworkRange?: string;
  /**
   * How each Run's files reach the engine (`--run-files`, the runner's runFiles): "disk", bind mounts
   * of its Run directory under runtimeDir, so the engine must share this host's disk; "engine",
   * through the engine's archive into volumes of the Run's own, so it need not. Not with `pool`.
   * Default "disk".
   */
  readonly runFiles?: RunFiles;
  /**
   * Agent containers kept started ahead (`--pool`), each bound to one Run at its claim: the runtime's
   * warm pool, on the runner of read-only Runs (a `writable: true` Run always starts cold). A Run with a
   * login file as its credential starts cold too. Needs this process to mount (root on the engine's
   * host) and cannot go with `sessions` (every Run would keep one, so none could be served warm). 0 to
   * MAX_POOL_SIZE; default 0: none, every Run starts cold.
   */
  readonly pool?: number;
  /** Seconds a pooled container waits for its Run before it is replaced (`--pool-idle-seconds`); default DEFAULT_POOL_IDLE_SECONDS. */
  readonly poolIdleSeconds?: number;
  /**
   * Each Run as a Pod in this cluster (`--kubernetes NAMESPACE`: `{ api: await createKubeApi(), namespace }`),
   * with the same API, queue, events, Harvest, cancel and Outcomes. At start its API server must answer and
   * the namespace enforce the restricted Pod Security standard. Not with what binds Docker (engines, pool,
   * sessions, standIn, runFiles "disk", agentNetworks, egress, runNetworkRange, a network policy but
   * "none"): refused, in run --kubernetes' words. Default: the Docker engine.
   */
  readonly kubernetes?: KubernetesBackend;
  /** Run every agent against the stand-in model (no key needed); default false. */
  readonly standIn?: boolean;
  /**
   * Keep each Run's CLI session in the Staging Directory, so a later POST /v1/runs may resume it
   * with `resumeSession` (`--sessions`; compose turns it on). Default false: nothing of a session
   * outlives its Run, and a request that names one is refused (400). A session is its tenant's: a
   * caller resumes only one a Run of its own tenant ended with (the admin scope, any).
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
  /**
   * Every tenant's quotas but the Operator's, unless set for it (agentcage tenants set): its Runs
   * running at once (`--tenant-max-running`, default `slots`), accepted and not ended
   * (`--tenant-max-queued`, default half the queue bound, so no one tenant fills it), and its spend
   * per UTC day in USD (`--tenant-daily-spend-usd`, default none). The Operator's own tenant has the
   * whole service unless set for it.
   */
  readonly tenantMaxRunning?: number;
  readonly tenantMaxQueued?: number;
  readonly tenantDailySpendUsd?: number;
  /**
   * Let Runs' callback URLs (and tenants' default ones) resolve to loopback, link-local or private
   * addresses (`--allow-private-callbacks`): for the deployment's own receivers. Default false: such
   * a callbackUrl is refused (400), so no caller can make the service POST into its own network.
   */
  readonly allowPrivateCallbacks?: boolean;
  /** When a webhook not delivered is tried again (webhook-schedule.ts); default DEFAULT_RETRY_SCHEDULE: for up to a day. Tests shorten it. */
  readonly webhookRetries?: RetrySchedule;
  /**
   * Ends the start when aborted (the command's SIGINT or SIGTERM while it starts): what it started is
   * stopped, no container left, and serve rejects (ServeError). Once serve resolved, stop() ends it. Default: none.
   */
  readonly signal?: AbortSignal;
  /** Told every few seconds while the start waits on the stand-in's or the proxy's container (the log hears it too). Must not throw. Default: none. */
  readonly onWaiting?: (step: AssemblyStep, waiting: AssemblyWaiting) => void;
  /** AGENTCAGE_TOKEN, AGENTCAGE_TOKEN_FILE: default this process's environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  readonly logger?: Logger;
};

export class ServeError extends AgentcageError {
  override readonly name = "ServeError";
  readonly code = "serve_refused";
}

/** The options serve goes on with, their defaults filled in. */
export type CheckedOptions = {
  readonly host: string;
  readonly slots: number;
  readonly queueBound: number;
  readonly sweepIntervalMs: number;
  /** From AGENTCAGE_TOKEN or AGENTCAGE_TOKEN_FILE; undefined when neither is set (serve makes one, on loopback only). */
  readonly token: string | undefined;
  /** Every tenant's default quotas but the Operator's. */
  readonly tenantDefaults: ResolvedQuotas;
};

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export async function checkServeOptions(options: ServeOptions): Promise<CheckedOptions> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.has(host) && isIP(host) === 0 && host !== "0.0.0.0")
    throw new ServeError(`--host ${JSON.stringify(host)} is not an address; write an IP address such as 127.0.0.1`);
  const token = await tokenFromEnvironment(options.environment ?? process.env);
  if (token === undefined && !LOOPBACK.has(host)) {
    throw new ServeError(`--host ${JSON.stringify(host)} is reachable from other machines and no token is set; set AGENTCAGE_TOKEN or AGENTCAGE_TOKEN_FILE`);
  }
  checkRetentionDays("--session-retention-days", options.sessionRetentionDays, "write how many days a session is kept after its last use, e.g. 30");
  checkRetentionDays(
    "--run-retention-days",
    options.runRetentionDays,
    "write how many days an ended Run's record and artifacts are kept, e.g. 90, or leave it out to keep them until DELETE",
  );
  // What the backend cannot go with (on Kubernetes what binds Docker) is refused first, in the words of run --kubernetes.
  const refused = serveRefusal(options, refusalsOf(options));
  if (refused !== undefined) throw new ServeError(refused);
  checkNetworkOptions(options);
  checkRunFiles(options);
  checkPoolOptions(options);
  checkStore(options.store);
  const sweepIntervalMs = options.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  if (!Number.isInteger(sweepIntervalMs) || sweepIntervalMs < 1)
    throw new ServeError(`sweepIntervalMs ${JSON.stringify(sweepIntervalMs)} is not a whole number of milliseconds above 0; leave it out for an hour`);
  const slots = options.slots ?? DEFAULT_SLOTS;
  if (!Number.isInteger(slots) || slots < 1 || slots > MAX_SLOTS)
    throw new ServeError(
      `--slots ${JSON.stringify(slots)} is not a whole number from 1 to ${MAX_SLOTS}; write how many Runs may run at once, or leave it out for ${DEFAULT_SLOTS}`,
    );
  const queueBound = options.queueBound ?? Math.max(DEFAULT_QUEUE_BOUND, slots);
  if (queueBound < slots)
    throw new ServeError(`--queue-bound ${queueBound} is below --slots ${slots}: the bound counts running Runs too; give at least ${slots}`);
  return { host, slots, queueBound, sweepIntervalMs, token, tenantDefaults: checkTenantDefaults(options, slots, queueBound) };
}

function checkTenantDefaults(options: ServeOptions, slots: number, queueBound: number): ResolvedQuotas {
  const whole = (flag: string, value: number | undefined, fallback: number, advice: string) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1))
      throw new ServeError(`${flag} ${JSON.stringify(value)} is not a whole number above 0; ${advice}`);
    return value ?? fallback;
  };
  const maxRunning = whole("--tenant-max-running", options.tenantMaxRunning, slots, `write how many Runs one tenant may run at once, e.g. ${slots}`);
  const maxQueued = whole(
    "--tenant-max-queued",
    options.tenantMaxQueued,
    Math.max(1, Math.floor(queueBound / 2)),
    "write how many Runs one tenant may have accepted and not ended",
  );
  const spend = options.tenantDailySpendUsd;
  if (spend !== undefined && !(Number.isFinite(spend) && spend >= 0))
    throw new ServeError(`--tenant-daily-spend-usd ${JSON.stringify(spend)} is not an amount of USD; write one such as 25, or leave it out for no cap`);
  return { maxRunning, maxQueued, ...(spend === undefined ? {} : { dailySpendUsd: spend }) };
}

/** The network policy, the networks declared by hand and the stand-in, which only go together in some ways. */
function checkNetworkOptions(options: ServeOptions): void {
  const policy = options.networkPolicy;
  if (policy !== undefined && !(NETWORK_POLICIES as readonly string[]).includes(policy)) {
    throw new ServeError(`--network-policy ${JSON.stringify(policy)} is not a policy; write one of ${NETWORK_POLICIES.join(", ")}`);
  }
  if (policy !== undefined && options.agentNetworks !== undefined) {
    throw new ServeError(bothPolicyAndNetworks(`--network-policy ${policy}`, `--agent-network ${options.agentNetworks.join(", ")}`));
  }
  const refusal = assemblyRefusal(
    { standIn: options.standIn === true, ...(policy === undefined ? {} : { networkPolicy: policy as NetworkPolicy }) },
    { standIn: "--stand-in", networkPolicy: "--network-policy" },
  );
  if (refusal !== undefined) throw new ServeError(refusal);
}

/** A --store serve can open: a Postgres URL with a host; said back with its password masked. */
function checkStore(store: string | undefined): void {
  if (store === undefined) return;
  const advice =
    "write postgres://user@host:5432/database (its password in PGPASSWORD, or the whole URL in AGENTCAGE_STORE, never on the command line) to keep the Runs in Postgres, or leave --store out to keep them in files under --runtime-dir";
  const said = `--store ${JSON.stringify(maskedStoreUrl(store))}`;
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    throw new ServeError(`${said} is not a Postgres URL; ${advice}`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new ServeError(`${said} is not a Postgres URL; ${advice}`);
  if (url.hostname === "" && !url.searchParams.has("host")) throw new ServeError(`${said} names no host; ${advice}`);
}

/** The warm pool's size and idle time, and what it needs: a process that can mount, and Runs that keep no session. */
function checkPoolOptions(options: ServeOptions): void {
  const { pool, poolIdleSeconds } = options;
  if (pool !== undefined && !(Number.isInteger(pool) && pool >= 0 && pool <= MAX_POOL_SIZE))
    throw new ServeError(
      `--pool ${JSON.stringify(pool)} is not a whole number from 0 to ${MAX_POOL_SIZE}; write how many agent containers to keep started ahead, e.g. 2, or 0 for none`,
    );
  if (poolIdleSeconds !== undefined && !(Number.isInteger(poolIdleSeconds) && poolIdleSeconds >= 1 && poolIdleSeconds <= MAX_POOL_IDLE_SECONDS))
    throw new ServeError(
      `--pool-idle-seconds ${JSON.stringify(poolIdleSeconds)} is not a whole number from 1 to ${MAX_POOL_IDLE_SECONDS}; write how long a pooled container waits for its Run before it is replaced, e.g. ${DEFAULT_POOL_IDLE_SECONDS}`,
    );
  if (pool === undefined || pool === 0) return;
  if (options.runFiles === "engine")
    throw new ServeError(
      `--pool ${pool} cannot go with --run-files engine: a pooled container's work/ is bound from this host's disk before its Run is known; leave --run-files out, or set --pool 0`,
    );
  if (options.sessions === true)
    throw new ServeError(
      `--pool ${pool} cannot go with --sessions: every Run then keeps its session, and a Run that keeps one always starts cold, so the pool would serve none; leave --sessions out, or set --pool 0`,
    );
  if (!canBoundWrites())
    throw new ServeError(
      `--pool ${pool} needs this process to mount a tmpfs for each pooled container's out/ (root on the engine's host, allowed to mount), and it cannot; run serve so, or set --pool 0`,
    );
}

/** How each Run's files reach the engine: one of RUN_FILES. */
function checkRunFiles(options: ServeOptions): void {
  const { runFiles } = options;
  if (runFiles !== undefined && !RUN_FILES.includes(runFiles))
    throw new ServeError(
      `--run-files ${JSON.stringify(runFiles)} is not one of ${RUN_FILES.join(", ")}; write engine to have each Run's files go through the engine, or leave it out to bind them from this host's disk`,
    );
}

function checkRetentionDays(flag: string, days: number | undefined, advice: string): void {
  if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= MAX_RETENTION_DAYS))
    throw new ServeError(`${flag} ${String(days)} is not a whole number of days from 1 to ${MAX_RETENTION_DAYS}; ${advice}`);
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
