// The one place the command and the service assemble their agent runners: the network policy's
// egress proxy (started for them, or the Operator's, connected to; over several engines, one started
// on each), the stand-in model when asked for, and runners over both. A proxy started for Runs whose
// files go through the engine (runFiles "engine") is reached through the engine too: nothing of it
// is bound from this host's disk either.
// Invariant: what it started it stops, in close() or when it fails. A start waits for the stand-in
// and the proxy for as long as their containers run (slow is not dead), saying so, and ends at once
// when a container is shown gone, or at the signal, leaving nothing.

import { pino, type Logger } from "pino";
import { createDegradations, type Degradations } from "../runtime/index.js";
import type { EgressGateway, EgressGatewayConnection, EgressGatewaySet } from "../gateway/index.js";
import { STAND_IN_ENVIRONMENT, standInRunnerOptions, startStandInModel, type RunningStandIn } from "../stand-in/index.js";
import { chooseBackend } from "./backend-choice.js";
import type { ProxyStart } from "./egress-placement.js";
import type { NetworkPolicy } from "./network-policy.js";
import { createAgentRunner, type AgentRunner } from "./runner.js";
import { AgentRunnerError, type AgentRunnerOptions } from "./runner-options.js";

export type RunnerAssemblyOptions = {
  /** Every runner's options but its network: image, staging (whose runtimeDir the proxy's control files share), limits, logger. */
  readonly runner: AgentRunnerOptions & { readonly staging: { readonly runtimeDir: string } };
  /** Default: none, or `networks` when they are given. */
  readonly networkPolicy?: NetworkPolicy;
  /** Networks declared by hand (never with a policy). */
  readonly networks?: readonly string[];
  /** The host:port pairs an `allowlist` Run may reach. */
  readonly allowlist?: readonly string[];
  /** Put the project's stand-in model where the model would be: behind the proxy under model/allowlist, else on a network of its own. Default false. */
  readonly standIn?: boolean;
  /** The Operator's own proxy (compose's egress service), connected to instead of starting one. */
  readonly egress?: EgressGatewayConnection;
  /** For a proxy started here: the networks through which it reaches the providers; default ["bridge"]. */
  readonly egressNetworks?: readonly string[];
  /** Once aborted, nothing more is started, and a start under way ends, removing what it made (a Ctrl-C while the proxy starts). */
  readonly signal?: AbortSignal;
  /** Told before each slow step, for a person watching. */
  readonly onStep?: (step: AssemblyStep) => void;
  /**
   * Told every few seconds while a slow step waits on its container (AssemblyWaiting), for a person
   * watching; the logger hears it too. Must not throw. Default: none.
   */
  readonly onWaiting?: (step: AssemblyStep, waiting: AssemblyWaiting) => void;
  readonly logger?: Logger;
};

/** The slow steps of an assembly: what it starts for the Runs. */
export type AssemblyStep = "egress proxy" | "egress proxy with the stand-in" | "stand-in model";

/** A step still waiting: for how long so far, and whether its container runs yet (else the engine has yet to start it). */
export type AssemblyWaiting = { readonly waitedMs: number; readonly running: boolean };

export type RunnerAssembly = {
  /** A runner over what was started; `extra` changes one runner (the service's writable one), never the network. Throws the library's refusals. */
  readonly runner: (extra?: Partial<AgentRunnerOptions>) => AgentRunner;
  /** The egress proxy in use, when the policy needs one over one engine. */
  readonly gateway: EgressGateway | undefined;
  /** Over several engines (the runner's `engines`), when the policy needs a proxy: one per engine. */
  readonly gateways: EgressGatewaySet | undefined;
  /**
   * What makes the runners and the proxies less than they say now: one board for all of them (the
   * runner options' `degradations`, else the assembly's own), so each is said once.
   */
  readonly degradations: Degradations;
  /** Stops what this assembly started (the stand-in, a proxy it started); a connected proxy is only let go. */
  readonly close: () => Promise<void>;
};

/**
 * Why these options cannot be assembled, decided from them alone (so a caller can refuse before it
 * writes anything), in the caller's own words for the two options; undefined when they can.
 */
export function assemblyRefusal(
  options: Pick<RunnerAssemblyOptions, "networkPolicy" | "standIn">,
  words: { readonly standIn: string; readonly networkPolicy: string } = { standIn: "standIn", networkPolicy: "networkPolicy" },
): string | undefined {
  const policy = options.networkPolicy;
  if (options.standIn !== true || policy === undefined || policy === "model" || policy === "allowlist") return undefined;
  return `${words.standIn} puts the agent on the stand-in model's own network, so ${words.networkPolicy} ${JSON.stringify(policy)} cannot go with it; use "model" (the stand-in behind the egress proxy), or leave ${words.networkPolicy} out`;
}

export async function assembleRunners(options: RunnerAssemblyOptions): Promise<RunnerAssembly> {
  const policy = options.networkPolicy;
  const proxied = policy === "model" || policy === "allowlist";
  const standIn = options.standIn === true;
  const refusal = assemblyRefusal(options);
  if (refusal !== undefined) throw new AgentRunnerError(refusal);
  const started: { gateway?: EgressGateway; gateways?: EgressGatewaySet; standIn?: RunningStandIn } = {};
  const logger = options.logger ?? options.runner.logger;
  const degradations = options.runner.degradations ?? createDegradations(logger ?? pino({ level: "silent" }));
  const close = async (): Promise<void> => {
    await started.standIn?.stop();
    await started.gateway?.close();
    await started.gateways?.close();
  };
  // Where the proxy goes is the backend's to say (in its cluster, one per engine, one): asked of the runners' own choice.
  const placement = proxied ? chooseBackend(options.runner).egress : undefined;
  try {
    if (placement !== undefined && options.signal?.aborted !== true) {
      const proxy = await placement.start(proxyStart(options, degradations));
      if ("forEngine" in proxy) started.gateways = proxy;
      else started.gateway = proxy;
    } else if (standIn && options.signal?.aborted !== true) {
      options.onStep?.("stand-in model");
      started.standIn = await startStandInModel("plain", {
        ...(options.logger === undefined ? {} : { logger: options.logger }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onWaiting: (waiting) => told(options, "stand-in model", waiting),
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  const network = networkOptions(options, started);
  return {
    runner: (extra = {}) => createAgentRunner({ ...options.runner, ...network, degradations, ...extra }),
    gateway: started.gateway,
    gateways: started.gateways,
    degradations,
    close,
  };
}

/** What the backend's placement starts its proxy with: this assembly's options, its board, and its steps told. */
function proxyStart(options: RunnerAssemblyOptions, degradations: Degradations): ProxyStart {
  const standIn = options.standIn === true;
  const step = standIn ? "egress proxy with the stand-in" : "egress proxy";
  return {
    runtimeDir: options.runner.staging.runtimeDir,
    // Through the engine when the Runs' files go that way (the engines may not see this disk); else the faster disk.
    control: options.runner.runFiles === "engine" ? "engine" : "disk",
    standIn,
    ...(options.egress === undefined ? {} : { egress: options.egress }),
    ...(options.egressNetworks === undefined ? {} : { egressNetworks: options.egressNetworks }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    degradations,
    onStart: () => options.onStep?.(step),
    onWaiting: (waitedMs) => told(options, step, { waitedMs, running: true }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
}

/** A step still waiting, told to the caller and its log: a wait is news, never a failure. */
function told(options: Pick<RunnerAssemblyOptions, "onWaiting" | "logger">, step: AssemblyStep, waiting: AssemblyWaiting): void {
  options.logger?.info({ step, waitedMs: waiting.waitedMs, running: waiting.running }, `the ${step} is still starting`);
  options.onWaiting?.(step, waiting);
}

/** What each runner is given for its network, from the policy and what was started for it. */
function networkOptions(
  options: RunnerAssemblyOptions,
  started: { readonly gateway?: EgressGateway; readonly gateways?: EgressGatewaySet; readonly standIn?: RunningStandIn },
): Partial<AgentRunnerOptions> {
  const declared: Partial<AgentRunnerOptions> = {
    ...(options.standIn === true ? { standIn: true } : {}),
    ...(options.networkPolicy === undefined ? {} : { networkPolicy: options.networkPolicy }),
    ...(options.networks === undefined ? {} : { networks: options.networks }),
    ...(options.allowlist === undefined ? {} : { allowlist: options.allowlist }),
  };
  // The stand-in behind the proxy: the agents hold tokens, the proxy the stand-in's made-up key.
  const egress = started.gateway ?? started.gateways;
  if (egress !== undefined) return { ...declared, egress, ...(options.standIn === true ? { environment: STAND_IN_ENVIRONMENT } : {}) };
  if (started.standIn !== undefined) return { ...declared, ...standInRunnerOptions(started.standIn) };
  return declared;
}
