// What createAgentRunner and its run() accept from plain JavaScript, checked where they are called:
// a refusal names the runner's own option (never the Agent Container it builds), quotes the
// value and says what to write. run() still never rejects: its misuse is an invalid_request Outcome.
// The options themselves are declared here, beside their checks.

import type Docker from "dockerode";
import type { Logger } from "pino";
import { AgentcageError } from "../errors/index.js";
import { describeValue, type Degradations, type EngineSet, type KubernetesBackend, type RunFiles } from "../runtime/index.js";
import type { ContainerLimits, StagingDeclaration } from "../container/index.js";
import type { EgressGateway, EgressGatewaySet } from "../gateway/index.js";
import type { Engine } from "../engine/index.js";
import { RUN_ID_PATTERN, type RunInputs } from "../staging/index.js";
import type { CodexProvider, AgentEvent } from "../agents/index.js";
import type { NetworkPolicy } from "./network-policy.js";
import type { RunTraceContext } from "./run-trace.js";

/** createAgentRunner's one argument: the agent image and what every Run of the runner shares. Only `image` is required. */
export type AgentRunnerOptions = {
  /** The agent image (images/agent), with both CLIs in it. */
  readonly image: string;
  readonly staging?: StagingDeclaration;
  /** Where credentials are read when the environment has none; files named like the variables, lower-case, mode 0600. */
  readonly secretsDirectory?: string;
  /**
   * For codex: a directory holding a ChatGPT login (`auth.json`), used only by agentcage; it wins
   * over API keys when no codexProvider is set. Each Run gets a read-only copy (needs `staging`).
   */
  readonly codexLoginDirectory?: string;
  /** Where credentials are looked up first; default: this process's environment. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** For claude: a gateway or stand-in model (ANTHROPIC_BASE_URL); default: the CLI's own endpoint. */
  readonly anthropicBaseUrl?: string;
  /** For codex: a gateway or stand-in model; default: the CLI's own provider. */
  readonly codexProvider?: CodexProvider;
  /**
   * Retries of a failed API call by the CLI itself (claude's CLAUDE_CODE_MAX_RETRIES, a codex
   * provider's retries); default 2. Left to its own default (10, with back-off) claude can spend a
   * whole timeout retrying an outage; the Outcome says `retryable` so the caller can decide.
   */
  readonly apiRetries?: number;
  /**
   * Keep each Run's CLI session (claude's conversation log, codex's rollout) in the Staging
   * Directory under its session id, so a later request can `resumeSession` it in a fresh container.
   * Needs `staging`. Default false: nothing of a session outlives its Run, and resumeSession is refused.
   */
  readonly sessions?: boolean;
  /**
   * What each Run's agent may reach (named in the Outcome as `network.policy`); default "none":
   * - "none": no network but loopback; the CLI cannot reach its model (for a stand-in that shares its namespace, use `networks`).
   * - "model": a network of the Run's own with no route out, where the only peer is the egress
   *   proxy (`egress`): the agent holds a per-Run token, never the real credential; the proxy meters
   *   every call and refuses calls past the request's budget.
   * - "allowlist": "model", plus HTTPS CONNECT through the proxy to the `allowlist` host:port pairs.
   * - "open": a network of the Run's own with a route to the internet, and the real credential in
   *   the container (see docs/network.md for what that risks).
   */
  readonly networkPolicy?: NetworkPolicy;
  /**
   * For "model" and "allowlist": the egress proxy, from `startEgressGateway` or `connectEgressGateway`;
   * with `engines`, one per engine, from `startEgressGateways({ engines, ... })` (each Run's network
   * and token are then made on the proxy of the engine it is placed on).
   */
  readonly egress?: EgressGateway | EgressGatewaySet;
  /** For "allowlist": the `host:port` pairs an agent may open an HTTPS tunnel to, like "api.example.com:443". */
  readonly allowlist?: readonly string[];
  /** Networks the agent joins, declared by hand instead of a policy (a stand-in model's `container:<name>`); default: none. */
  readonly networks?: readonly string[];
  /** The container runtime for every agent (e.g. "runsc" for gVisor); default: the engine's. */
  readonly containerRuntime?: string;
  readonly limits?: ContainerLimits;
  readonly user?: string;
  readonly owner?: string;
  readonly logger?: Logger;
  readonly maxConcurrentRuns?: number;
  /**
   * How each Run's files reach its container (the runtime's runFiles): "disk", bind mounts of its Run
   * directory, so the engine shares this host's disk; "engine", through the engine alone (volumes of
   * the Run's own, filled and read back through its archive under the Harvest's rules), so the engine
   * may be elsewhere. Not with a codexLoginDirectory handed to the agent, nor a pool with staging.
   * Default "disk", the faster.
   */
  readonly runFiles?: RunFiles;
  /** The IPv4 range each Run's own network (under model, allowlist, open) takes a /28 of; default 10.213.0.0/16 (the runtime's runNetworkRange). */
  readonly runNetworkRange?: string;
  /**
   * A warm pool of agent containers started ahead, each bound to one Run at its claim (the runtime's
   * pool): members are made on the network the policy gives every Run (under model and allowlist,
   * their own internal network with the egress proxy already joined). A Run a member cannot serve (a
   * login file as its credential, a session to keep, a writable work/) starts cold. `onClaim` is told
   * each warm Run's claim latency in ms (for a histogram; it must not throw). Under `model`, each
   * member also starts claude ahead (`headStart`, default true): with the argv of the runner's default
   * request, or of the last claude Run that carried no text of its caller's, and a per-Run token of
   * its own that the egress proxy refuses until the Run that claims it registers it; a claude Run of
   * that argv is handed the running claude. Under `none` too (with maxIdleSeconds under 540), holding
   * no key: claude's key helper waits for the key the claim writes to the member's tmpfs. Call
   * close() when done. Default: none.
   */
  readonly pool?: {
    readonly size: number;
    readonly maxIdleSeconds?: number;
    readonly onClaim?: (latencyMs: number) => void;
    readonly headStart?: boolean;
  };
  readonly docker?: Docker;
  /** The container engine; default: Docker through `docker`. */
  readonly engine?: Engine;
  /**
   * Several engines (createEngineSet), each Run placed on one (the runtime's `engines`). Under "model"
   * and "allowlist", `egress` is a proxy per engine (startEgressGateways over the same set); "open"
   * makes each Run's network on its engine. Not with `networks` (declared on one engine), `engine`,
   * `docker` or `pool`. Default: the one engine.
   */
  readonly engines?: EngineSet;
  /**
   * Runs each Run as a Pod on a Kubernetes cluster instead of a Docker container (the runtime's
   * `kubernetes`): `{ api: await createKubeApi(), namespace: "agents" }`. The same Outcome, reasons and
   * Harvest; its files go through the Pod (runFiles "engine"). Under "model" and "allowlist" the
   * egress proxy runs in the cluster, in the Runs' namespace (startKubeEgressGateway, or started here
   * when `egress` is left out); "open" is refused. Not with `engine`, `engines`, `docker`, `pool`,
   * `networks` or `sessions`. Not yet run against a live cluster. Default: Docker.
   */
  readonly kubernetes?: KubernetesBackend;
  /**
   * Where the runner says what makes it less than it says while it goes on (the runtime's
   * `degradations`: a pool that cannot fill, a Run network range that clashes, an engine drained;
   * the assembly's egress proxies add theirs), shared by the runners of one service so each is said
   * once. Default: a board of the runner's own (runner.degradations()).
   */
  readonly degradations?: Degradations;
  /**
   * The Runs' model is the project's stand-in (standInRunnerOptions, and the assembly's standIn, set
   * it): each Run's Outcome says `standIn: true`, since its usage, and any cost priced from it, are
   * made up and billed by no one. Default false.
   */
  readonly standIn?: boolean;
};

/** What one agent Run may be given beside its request and prompt: a signal, inputs, a Harvest, an onEvent. */
export type AgentRunOptions = {
  readonly signal?: AbortSignal;
  readonly inputs?: RunInputs;
  readonly harvestTo?: string;
  /** Replace a harvestTo that already holds files; default false (such a Run is refused). */
  readonly replaceHarvestTo?: boolean;
  /** Each event as the stream is read, secrets masked. If it throws, the Run goes on; see `onEventError`. */
  readonly onEvent?: (event: AgentEvent) => void;
  /**
   * The id this Run takes, made by `newRunId()`, when the caller names something by it before the
   * Run starts (a service's record of the Run). Every Outcome of the call carries it, a refusal's
   * too. Default: a new one.
   */
  readonly runId?: string;
  /**
   * The caller's W3C trace context (`traceparent`, `tracestate`) and since when (ms since the epoch)
   * the Run waited in the caller's own queue: the Run's `agentcage.run` span is then a child of that
   * remote span and starts with a `queue` step. A malformed traceparent is ignored. Default: the
   * active OpenTelemetry context, no queue step.
   */
  readonly traceContext?: RunTraceContext;
};

/** A createAgentRunner() or commandFor() call that cannot mean anything. */
export class AgentRunnerError extends AgentcageError {
  override readonly name = "AgentRunnerError";
  readonly code = "invalid_runner_options";
}

const RUNNER_OPTION_NAMES: ReadonlyArray<keyof AgentRunnerOptions> = [
  "image",
  "staging",
  "secretsDirectory",
  "codexLoginDirectory",
  "environment",
  "anthropicBaseUrl",
  "codexProvider",
  "apiRetries",
  "sessions",
  "networkPolicy",
  "egress",
  "allowlist",
  "networks",
  "containerRuntime",
  "limits",
  "user",
  "owner",
  "logger",
  "maxConcurrentRuns",
  "runFiles",
  "runNetworkRange",
  "pool",
  "docker",
  "engine",
  "engines",
  "kubernetes",
  "degradations",
  "standIn",
];
const RUN_OPTION_NAMES: ReadonlyArray<keyof AgentRunOptions> = ["signal", "inputs", "harvestTo", "replaceHarvestTo", "onEvent", "runId", "traceContext"];

export function checkRunnerOptions(options: unknown, extra: readonly unknown[]): void {
  if (extra.length > 0) throw new AgentRunnerError(`createAgentRunner takes one argument, its options; ${extra.length} more were given`);
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new AgentRunnerError(`createAgentRunner's options ${describeValue(options)} is not an object; pass { image: "agentcage-agent:latest", ... }`);
  }
  const unknown = Object.keys(options).filter((key) => !(RUNNER_OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new AgentRunnerError(`createAgentRunner option ${JSON.stringify(unknown[0])} is not one it knows; use ${RUNNER_OPTION_NAMES.join(", ")}`);
}

/** Why a runner.run() call cannot mean anything, or undefined. */
export function checkRunCall(prompt: unknown, options: unknown, extra: readonly unknown[]): string | undefined {
  if (extra.length > 0) return `run takes (request, prompt, options); ${extra.length} more argument(s) were given; put every option inside options`;
  if (typeof prompt !== "string") return `the prompt ${describeValue(prompt)} is not a string; pass the prompt's text`;
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    return `run's options ${describeValue(options)} is not an object; pass { signal, inputs, harvestTo, onEvent } or leave it out`;
  }
  const unknown = Object.keys(options).filter((key) => !(RUN_OPTION_NAMES as readonly string[]).includes(key));
  if (unknown.length > 0) return `run option ${JSON.stringify(unknown[0])} is not one it knows; use ${RUN_OPTION_NAMES.join(", ")}`;
  const { signal, onEvent, runId } = options as AgentRunOptions;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    return `run option signal ${describeValue(signal)} is not an AbortSignal; pass controller.signal or leave it out`;
  if (onEvent !== undefined && typeof onEvent !== "function")
    return `run option onEvent ${describeValue(onEvent)} is not a function; pass (event) => ... or leave it out`;
  if (runId !== undefined && (typeof runId !== "string" || !RUN_ID_PATTERN.test(runId)))
    return `run option runId ${describeValue(runId)} is not a Run id; make one with newRunId(), or leave it out`;
  return undefined;
}

/** A container declaration's refusal, said in the runner's words: its options, not the Agent Container it builds. */
export function inRunnerWords(error: Error): AgentRunnerError {
  return new AgentRunnerError(error.message.replace(/^Agent Container is invalid: /, "createAgentRunner options are invalid: "), { cause: error });
}
