// The runners serve's Runs go through: one assembly (the network policy, the egress proxy serve
// starts when the policy needs one and none is given, one per engine over several) and two runners on one Staging Directory,
// `staging/` beside the service's records, whose Agent Containers differ in their work/ mount
// alone. The warm pool (--pool) is the read-only runner's alone: a writable work/ is fixed when a
// container is made, so every Run of the writable runner starts cold and a pool there would only
// idle. On Kubernetes (--kubernetes) both run Pods, and the cluster is checked before serve goes on.
// What it started it stops when it fails: a refused assembly leaves nothing running.

import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "pino";
import type { StagingDeclaration } from "../../container/index.js";
import { AGENT_IMAGE, assembleRunners, type AgentRunner, type NetworkPolicy, type RunnerAssembly } from "../../runner/index.js";
import { engineSetOf, type EngineSet } from "../../runtime/index.js";
import { SERVICE_STOP_GRACE_SECONDS } from "../limits.js";
import { ServeError, type ServeOptions } from "./serve-options.js";

export type ServiceRunners = {
  readonly assembly: RunnerAssembly;
  /** For every Run but a writable one; it holds the warm pool, when there is one. */
  readonly runner: AgentRunner;
  /** For a request with `writable: true`. */
  readonly writableRunner: AgentRunner;
  /** The engines `--engine` named, shared by both runners; undefined for the one default engine. */
  readonly engines?: EngineSet;
  /** Removes the warm pool's members (both runners' close()), then stops what the assembly started. */
  readonly close: () => Promise<void>;
};

/** Told each warm Run's claim latency in ms, for the metrics. */
export type ClaimListener = (latencyMs: number) => void;

export async function assembleServiceRunners(options: ServeOptions, slots: number, logger: Logger, onClaim?: ClaimListener): Promise<ServiceRunners> {
  const staging = stagingOf(options);
  await mkdir(staging.runtimeDir, { recursive: true, mode: 0o700 });
  // Both runners share one engine set: an engine's slots and its drain count over every Run of the service.
  const engines = engineSetFor(options, slots);
  const assembly = await assemble(options, staging, slots, logger, engines).catch((error: unknown) => {
    engines?.close();
    throw error;
  });
  const onEngines = engines === undefined ? {} : { engines };
  let writableRunner: AgentRunner | undefined;
  try {
    // Two runners on one Staging Directory: a writable Run's Agent Container differs in its work/ mount alone.
    // The writable one first: it starts nothing, so a refusal of the pooled one leaves no member behind.
    writableRunner = assembly.runner({ staging: { ...staging, writableWork: true }, ...onEngines });
    const size = options.pool ?? 0;
    const pool =
      size === 0
        ? {}
        : {
            pool: {
              size,
              ...(options.poolIdleSeconds === undefined ? {} : { maxIdleSeconds: options.poolIdleSeconds }),
              ...(onClaim === undefined ? {} : { onClaim }),
            },
          };
    const runner = assembly.runner({ ...pool, ...onEngines });
    const both = [runner, writableRunner];
    if (options.kubernetes !== undefined)
      await refuseUnreadyCluster(runner).catch(async (error: unknown) => {
        await runner.close();
        throw error;
      });
    return {
      assembly,
      runner,
      writableRunner,
      ...onEngines,
      close: async () => {
        await Promise.all(both.map((one) => one.close()));
        engines?.close();
        await assembly.close();
      },
    };
  } catch (error) {
    await writableRunner?.close();
    engines?.close();
    await assembly.close();
    throw new ServeError(error instanceof Error ? error.message : String(error));
  }
}

/** A cluster whose API server does not answer, or whose namespace may not hold a Run's Pod, refuses the start, saying what to do. */
async function refuseUnreadyCluster(runner: AgentRunner): Promise<void> {
  const { cluster } = await runner.check();
  if (cluster?.problem !== undefined) throw new Error(`--kubernetes ${JSON.stringify(cluster.namespace)} cannot be served: ${cluster.problem}`);
}

/** The engines `--engine` names, each taking at most `slots` Runs unless its own slots= says; undefined for the one default engine. */
function engineSetFor(options: ServeOptions, slots: number): EngineSet | undefined {
  if (options.engines === undefined || options.engines.length === 0) return undefined;
  try {
    return engineSetOf(options.engines, "--engine", slots);
  } catch (error) {
    throw new ServeError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * The library's Run directories in staging/, beside the service's records in service/: a Run's
 * harvestTo (service/runs/<id>/harvest) may not lie inside the runner's Staging Directory.
 */
function stagingOf(options: ServeOptions): StagingDeclaration {
  return {
    runtimeDir: join(options.runtimeDir, "staging"),
    ...(options.sessionRetentionDays === undefined ? {} : { sessionRetentionDays: options.sessionRetentionDays }),
    ...(options.writableBytes === undefined ? {} : { writableBytes: options.writableBytes }),
  };
}

async function assemble(
  options: ServeOptions,
  staging: StagingDeclaration,
  slots: number,
  logger: Logger,
  engines: EngineSet | undefined,
): Promise<RunnerAssembly> {
  try {
    return await assembleRunners({
      runner: {
        image: options.image ?? AGENT_IMAGE,
        staging,
        // The assembly starts an egress proxy on each engine when the policy needs one.
        ...(engines === undefined ? {} : { engines }),
        maxConcurrentRuns: slots,
        ...(options.sessions === true ? { sessions: true } : {}),
        ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
        ...(options.runNetworkRange === undefined ? {} : { runNetworkRange: options.runNetworkRange }),
        ...(options.runFiles === undefined ? {} : { runFiles: options.runFiles }),
        ...(options.kubernetes === undefined ? {} : { kubernetes: options.kubernetes }),
        // A cancel answers in seconds whatever the agent does: SIGTERM, then SIGKILL after SERVICE_STOP_GRACE_SECONDS.
        limits: { stopGraceSeconds: SERVICE_STOP_GRACE_SECONDS },
        logger,
      },
      ...(options.networkPolicy === undefined ? {} : { networkPolicy: options.networkPolicy as NetworkPolicy }),
      ...(options.agentNetworks === undefined ? {} : { networks: options.agentNetworks }),
      ...(options.allowlist === undefined ? {} : { allowlist: options.allowlist }),
      standIn: options.standIn === true,
      ...(options.egress === undefined ? {} : { egress: options.egress }),
      ...(options.egressNetworks === undefined ? {} : { egressNetworks: options.egressNetworks }),
      // A stop while serve starts ends the stand-in's or the proxy's start at once, removing its container.
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onWaiting === undefined ? {} : { onWaiting: options.onWaiting }),
      logger,
    });
  } catch (error) {
    throw new ServeError(error instanceof Error ? error.message : String(error));
  }
}
