// A runner's settings, resolved once at construction from its options: the network policy, the
// CLIs' own retries, whether sessions are kept, the egress proxy, where each CLI speaks, the workdir.
// Invariant: what cannot mean anything is refused here with an AgentRunnerError, before any Run;
// no Run resolves a setting again.

import { DEFAULT_AGENT_WORKDIR } from "../container/index.js";
import type { RunBackend } from "../runtime/index.js";
import type { EgressGateway, EgressGatewaySet } from "../gateway/index.js";
import { AGENT_CLIS, adapterFor, type AgentCli, type AgentEndpoint, type EndpointOverrides } from "../agents/index.js";
import { DEFAULT_API_RETRIES, MAX_API_RETRIES } from "./limits.js";
import { AgentRunnerError, type AgentRunnerOptions } from "./runner-options.js";
import { chooseBackend } from "./backend-choice.js";
import { checkNetworkPolicy } from "./network-options.js";
import { egressBaseUrl, type NetworkPolicy } from "./network-policy.js";

export type RunnerSettings = {
  /** The options as the caller gave them (their shape already checked). */
  readonly options: AgentRunnerOptions;
  /** Where its Runs' containers live, chosen once from the options; its runtime takes this one. */
  readonly backend: RunBackend;
  readonly policy: NetworkPolicy;
  /** Retries of a failed API call by the CLI itself. */
  readonly apiRetries: number;
  readonly keepSessions: boolean;
  /** The egress proxy, under "model" and "allowlist" over one engine only. */
  readonly gateway: EgressGateway | undefined;
  /** Over several engines, under "model" and "allowlist": one proxy per engine, a Run's chosen where it is placed. */
  readonly proxies: EgressGatewaySet | undefined;
  /**
   * Where each CLI speaks (its adapter's reading of the Operator's anthropicBaseUrl, codexProvider, or
   * the proxy when there is one), with the runner's retries; undefined: the CLI's own provider.
   */
  readonly endpoints: Readonly<Record<AgentCli, AgentEndpoint | undefined>>;
  /** One working directory for the container and for codex's --cd: the staged workspace's. */
  readonly workdir: string;
};

/** The settings of a runner whose options' shape was checked; throws AgentRunnerError for values that cannot go. */
export function resolveRunnerSettings(options: AgentRunnerOptions): RunnerSettings {
  if (options.standIn !== undefined && typeof options.standIn !== "boolean") {
    throw new AgentRunnerError(
      `standIn ${JSON.stringify(options.standIn)} is not true or false; write true for a runner whose model is the stand-in, or leave it out`,
    );
  }
  const choice = chooseBackend(options);
  const { backend } = choice;
  const policy = checkNetworkPolicy(options, choice);
  const apiRetries = checkedApiRetries(options);
  const keepSessions = checkedSessions(options, backend);
  if (options.codexLoginDirectory !== undefined && options.staging === undefined) {
    throw new AgentRunnerError(
      `codexLoginDirectory ${JSON.stringify(options.codexLoginDirectory)} needs staging: each Run gets a copy of the login in its Run directory; declare staging: { runtimeDir }`,
    );
  }
  const egress = policy === "model" || policy === "allowlist" ? options.egress : undefined;
  const proxies = egress !== undefined && "forEngine" in egress ? egress : undefined;
  const gateway = proxies === undefined ? (egress as EgressGateway | undefined) : undefined;
  // Behind the proxy the CLIs speak to it; where it sends them is the proxy's own setting (every proxy of a set is reached alike).
  const overrides: EndpointOverrides =
    egress === undefined
      ? {
          ...(options.anthropicBaseUrl === undefined ? {} : { anthropicBaseUrl: options.anthropicBaseUrl }),
          ...(options.codexProvider === undefined ? {} : { codexProvider: options.codexProvider }),
        }
      : { proxy: { baseUrl: egressBaseUrl(egress), ...(egress.codexModel === undefined ? {} : { codexModel: egress.codexModel }) } };
  const endpoints = Object.fromEntries(
    AGENT_CLIS.map((cli) => {
      const endpoint = adapterFor(cli).endpointOf(overrides);
      return [cli, endpoint === undefined ? undefined : { ...endpoint, maxRetries: endpoint.maxRetries ?? apiRetries }];
    }),
  ) as Record<AgentCli, AgentEndpoint | undefined>;
  // A login is the CLI's own provider's: a CLI pointed elsewhere takes a key.
  const loginUsed = AGENT_CLIS.some((cli) => adapterFor(cli).login !== undefined && endpoints[cli] === undefined);
  if (options.runFiles === "engine" && options.codexLoginDirectory !== undefined && loginUsed) {
    throw new AgentRunnerError(
      `codexLoginDirectory ${JSON.stringify(options.codexLoginDirectory)} is handed to each Run as a file bound from this host's disk, and runFiles "engine" binds nothing of it; give codex an API key instead, or use runFiles "disk"`,
    );
  }
  return {
    options,
    backend,
    policy,
    apiRetries,
    keepSessions,
    gateway,
    proxies,
    endpoints,
    workdir: options.staging?.agentWorkdir ?? DEFAULT_AGENT_WORKDIR,
  };
}

function checkedApiRetries(options: AgentRunnerOptions): number {
  const apiRetries = options.apiRetries ?? DEFAULT_API_RETRIES;
  if (!Number.isInteger(apiRetries) || apiRetries < 0 || apiRetries > MAX_API_RETRIES) {
    throw new AgentRunnerError(`apiRetries ${JSON.stringify(apiRetries)} is out of range; write a whole number from 0 to ${MAX_API_RETRIES}`);
  }
  return apiRetries;
}

function checkedSessions(options: AgentRunnerOptions, backend: RunBackend): boolean {
  const keepSessions = options.sessions === true;
  if (options.sessions !== undefined && typeof options.sessions !== "boolean") {
    throw new AgentRunnerError(`sessions ${JSON.stringify(options.sessions)} is not a boolean; pass true to keep sessions for resumeSession, or leave it out`);
  }
  if (keepSessions && options.staging === undefined) {
    throw new AgentRunnerError("sessions: true needs staging: each session is kept in the Staging Directory; declare staging: { runtimeDir }");
  }
  const refused = keepSessions ? backend.refusal({ needs: "session", asked: "sessions: true", audience: "library" }) : undefined;
  if (refused !== undefined) throw new AgentRunnerError(refused);
  return keepSessions;
}
