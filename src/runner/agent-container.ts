// The one Agent Container a runner declares (the agent image, every CLI's public variables, the
// Operator's staging, networks, runtime, limits) and the runtime over it with the Run Plan per CLI.
// Invariant: no credential is in the declaration (each Run gets its own); a declaration the container
// refuses is refused at construction, in the runner's words.

import { AgentContainerError, type AgentContainer } from "../container/index.js";
import { createAgentContainerRuntime, describeValue, type AgentContainerRuntime, type PoolOptions } from "../runtime/index.js";
import { everyPublicEnvironment, type AgentResult } from "../agents/index.js";
import { AgentRunnerError, inRunnerWords } from "./runner-options.js";
import { publicProxyEnvironment } from "./network-policy.js";
import { planRun, type PlannedRequest } from "./run-plan.js";
import type { RunnerSettings } from "./settings.js";
import type { HeadStarts } from "./head-start.js";

export type RunnerRuntime = AgentContainerRuntime<AgentResult, PlannedRequest>;

/** The runtime every Run of the runner goes through; throws AgentRunnerError for a declaration that cannot mean anything. */
export function createRunnerRuntime(settings: RunnerSettings, headStarts?: HeadStarts): RunnerRuntime {
  const { options } = settings;
  const container = runnerContainer(settings);
  try {
    return createAgentContainerRuntime<AgentResult, PlannedRequest>({
      container,
      ...(options.maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns: options.maxConcurrentRuns }),
      ...(options.runNetworkRange === undefined ? {} : { runNetworkRange: options.runNetworkRange }),
      ...(options.runFiles === undefined ? {} : { runFiles: options.runFiles }),
      ...(options.pool === undefined ? {} : { pool: poolOf(settings, options.pool, headStarts) }),
      // The backend the settings chose from engine, engines, docker or kubernetes: chosen once.
      backend: settings.backend,
      ...(options.degradations === undefined ? {} : { degradations: options.degradations }),
      run: planRun(settings, headStarts !== undefined),
    });
  } catch (error) {
    throw error instanceof AgentContainerError ? inRunnerWords(error) : error;
  }
}

/** The runtime's pool: members on the network every Run of the policy gets (run-container.ts decides the same). */
function poolOf(settings: RunnerSettings, pool: NonNullable<RunnerSettings["options"]["pool"]>, headStarts: HeadStarts | undefined): PoolOptions {
  const { gateway, policy } = settings;
  const network =
    gateway !== undefined
      ? { kind: "internal" as const, attach: { container: gateway.container, alias: gateway.alias } }
      : policy === "open" && settings.options.networks === undefined
        ? { kind: "open" as const }
        : undefined;
  const { headStart, ...rest } = pool;
  if (headStart !== undefined && typeof headStart !== "boolean") {
    throw new AgentRunnerError(`pool.headStart ${describeValue(headStart)} is not true or false; write false to start no agent ahead, or leave it out`);
  }
  return { ...rest, ...(network === undefined ? {} : { network }), ...(headStarts === undefined ? {} : { headStart: headStarts.plan }) };
}

function runnerContainer(settings: RunnerSettings): AgentContainer {
  const { options, endpoints, apiRetries, policy } = settings;
  const gateway = settings.gateway ?? settings.proxies;
  return {
    image: options.image,
    // Every CLI's public variables, each pointed at its endpoint with the runner's retries: each ignores the others'.
    publicEnv: {
      ...everyPublicEnvironment(endpoints, apiRetries),
      ...(gateway !== undefined && policy === "allowlist" ? publicProxyEnvironment(gateway) : {}),
    },
    ...(options.staging === undefined ? {} : { staging: options.staging }),
    workdir: settings.workdir,
    ...(options.networks === undefined ? {} : { networks: options.networks }),
    ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.user === undefined ? {} : { user: options.user }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
}
