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
import { SERVICE_STOP_GRACE_SECONDS } from "../limits.js";
import { serviceBackendOf, type ServiceBackend } from "./serve-backend.js";
import { ServeError, type ServeOptions } from "./serve-options.js";

export type ServiceRunners = {
  readonly assembly: RunnerAssembly;
  /** For every Run but a writable one; it holds the warm pool, when there is one. */
  readonly runner: AgentRunner;
  /** For a request with `writable: true`. */
  readonly writableRunner: AgentRunner;
  /** What both runners run on (serve-backend.ts): its start's check, its series, what it lets go of. */
  readonly backend: ServiceBackend;
  /** Removes the warm pool's members (both runners' close()), then stops what the assembly started. */
  readonly close: () => Promise<void>;
};

/** Told each warm Run's claim latency in ms, for the metrics. */
export type ClaimListener = (latencyMs: number) => void;

export async function assembleServiceRunners(options: ServeOptions, slots: number, logger: Logger, onClaim?: ClaimListener): Promise<ServiceRunners> {
  const staging = stagingOf(options);
  await mkdir(staging.runtimeDir, { recursive: true, mode: 0o700 });
  // Both runners share one backend: an engine set's slots and its drain count over every Run of the service.
  const backend = serviceBackendOf(options, slots);
  const assembly = await assemble(options, staging, slots, logger, backend).catch((error: unknown) => {
    backend.close();
    throw error;
  });
  let writableRunner: AgentRunner | undefined;
  try {
    // Two runners on one Staging Directory: a writable Run's Agent Container differs in its work/ mount alone.
    // The writable one first: it starts nothing, so a refusal of the pooled one leaves no member behind.
    writableRunner = assembly.runner({ staging: { ...staging, writableWork: true }, ...backend.runner });
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
    const runner = assembly.runner({ ...pool, ...backend.runner });
    const both = [runner, writableRunner];
    await backend.refuseUnready(runner).catch(async (error: unknown) => {
      await runner.close();
      throw error;
    });
    return {
      assembly,
      runner,
      writableRunner,
      backend,
      close: async () => {
        await Promise.all(both.map((one) => one.close()));
        backend.close();
        await assembly.close();
      },
    };
  } catch (error) {
    await writableRunner?.close();
    backend.close();
    await assembly.close();
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

async function assemble(options: ServeOptions, staging: StagingDeclaration, slots: number, logger: Logger, backend: ServiceBackend): Promise<RunnerAssembly> {
  try {
    return await assembleRunners({
      runner: {
        image: options.image ?? AGENT_IMAGE,
        staging,
        // The assembly starts the egress proxy where the backend's Runs reach it (one per engine over several) when the policy needs one.
        ...backend.runner,
        maxConcurrentRuns: slots,
        ...(options.sessions === true ? { sessions: true } : {}),
        ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
        ...(options.runNetworkRange === undefined ? {} : { runNetworkRange: options.runNetworkRange }),
        ...(options.runFiles === undefined ? {} : { runFiles: options.runFiles }),
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
