// An agent runner: one Agent Container for the agent image, and per Run a typed request turned
// into a Run Plan for its CLI, with the allow-listed environment and exactly one credential.
// Everything that can go wrong before a container is an Outcome too; the credential is never shown.

import {
  AgentContainerError,
  createAgentContainerRuntime,
  DEFAULT_AGENT_WORKDIR,
  createMasker,
  refusedOutcome,
  type AgentContainer,
  type AgentContainerRuntime,
  type ComposedCommand,
  type EgressBreach,
  type EgressGateway,
  type RunMeter,
  type Outcome,
  type RunOptions,
  type SessionStoreOptions,
  type SweepResult,
} from "../runtime/index.js";
import { claudeArgs } from "./claude.js";
import { parseClaudeStream } from "./claude-stream.js";
import { codexArgs, type CodexProvider } from "./codex.js";
import { parseCodexStream } from "./codex-stream.js";
import { CREDENTIAL_VARIABLES, CredentialError, findCredential, type Credential, type CredentialKind } from "./credentials.js";
import { CLAUDE_CONFIG_DIR, CODEX_HOME, publicEnvironment } from "./environment.js";
import {
  DEFAULT_API_RETRIES,
  EGRESS_EVENTS_OPEN_MS,
  EGRESS_GONE_AFTER_MISSES,
  EXIT_AFTER_RESULT_MS,
  MAX_API_RETRIES,
  METER_EVENT_INTERVAL_MS,
  METER_READ_TIMEOUT_MS,
} from "./limits.js";
import { AGENT_CLIS, AgentRequestError, parseAgentRequest, type AgentCli, type AgentRequest, type AgentRequestInput } from "./request.js";
import { AgentRunnerError, checkRunCall, checkRunnerOptions, inRunnerWords, type AgentRunOptions, type AgentRunnerOptions } from "./runner-options.js";
import { createRunGuard, type BudgetReport } from "./guard.js";
import { unheldCaps } from "./budget.js";
import type { AgentEvent, AgentResult, BudgetCap } from "./result.js";
import { checkNetworkPolicy } from "./network-options.js";
import { egressBaseUrl, publicProxyEnvironment, registerProxiedRun, type NetworkPolicy, type NetworkReport, type ProxiedRun } from "./network-policy.js";

export type AgentOutcome = Outcome<AgentResult> & {
  /** Which kind of credential the Run got; never its value. */
  readonly credential: CredentialKind;
  readonly cli?: AgentCli;
  /** The first error the caller's onEvent threw (masked); the Run went on without delivering to it. */
  readonly onEventError?: string;
  /** With a budget: its caps, what the Run spent, and the cap it passed when it ended budget_exceeded. */
  readonly budget?: BudgetReport;
  /** The Run's network policy, and under the egress proxy what it metered (the provider's own counts). */
  readonly network?: NetworkReport;
};

/** What rides on the prompt from `run` to the plan function. */
type PlannedRequest = {
  readonly request: AgentRequest;
  readonly onEvent?: (event: AgentEvent) => void;
  readonly onEventFailed?: (error: unknown) => void;
  /** The Run's guards: each event the agent printed (masked), and the events they add (budget). */
  readonly watch: (event: AgentEvent) => AgentEvent[];
  /** Takes the Run's own way to tell the caller an event (masked, the caller's failures caught), for events the runner makes. */
  readonly attach?: (deliver: (event: AgentEvent) => void) => void;
};

export type AgentRunner = {
  /** Never rejects: a malformed call, a missing credential, anything that happens to the Run is the Outcome. */
  readonly run: (request: AgentRequestInput, prompt: string, options?: AgentRunOptions) => Promise<AgentOutcome>;
  /** The `docker run` words for a request, starting nothing; the credential only by name. */
  readonly commandFor: (request: AgentRequestInput, prompt: string) => Promise<ComposedCommand>;
  readonly sweep: () => Promise<SweepResult>;
  /**
   * Keeps the session a request resumes from this process's sweeps until the returned release is
   * called: for a Run that waits in a caller's own queue before `run`. A request that resumes
   * nothing, or a runner that keeps no sessions, holds nothing.
   */
  readonly holdSession: (request: Pick<AgentRequestInput, "cli" | "resumeSession">) => () => void;
  /** Whether a Run could start now, and which kind of credential each CLI would get (never a value). */
  readonly check: () => Promise<{ readonly engine: boolean; readonly image: boolean; readonly credentials: Readonly<Record<AgentCli, CredentialKind>> }>;
};

export function createAgentRunner(options: AgentRunnerOptions, ...extra: never[]): AgentRunner {
  checkRunnerOptions(options, extra);
  const policy = checkNetworkPolicy(options);
  const apiRetries = options.apiRetries ?? DEFAULT_API_RETRIES;
  if (!Number.isInteger(apiRetries) || apiRetries < 0 || apiRetries > MAX_API_RETRIES) {
    throw new AgentRunnerError(`apiRetries ${JSON.stringify(apiRetries)} is out of range; write a whole number from 0 to ${MAX_API_RETRIES}`);
  }
  const keepSessions = options.sessions === true;
  if (options.sessions !== undefined && typeof options.sessions !== "boolean") {
    throw new AgentRunnerError(`sessions ${JSON.stringify(options.sessions)} is not a boolean; pass true to keep sessions for resumeSession, or leave it out`);
  }
  if (keepSessions && options.staging === undefined) {
    throw new AgentRunnerError("sessions: true needs staging: each session is kept in the Staging Directory; declare staging: { runtimeDir }");
  }
  if (options.codexLoginDirectory !== undefined && options.staging === undefined) {
    throw new AgentRunnerError(
      `codexLoginDirectory ${JSON.stringify(options.codexLoginDirectory)} needs staging: each Run gets a copy of the login in its Run directory; declare staging: { runtimeDir }`,
    );
  }
  const gateway = policy === "model" || policy === "allowlist" ? options.egress : undefined;
  // Behind the proxy the CLIs speak to it; where it sends them is the proxy's own setting.
  const anthropicBaseUrl = gateway === undefined ? options.anthropicBaseUrl : egressBaseUrl(gateway);
  const declaredProvider =
    gateway === undefined
      ? options.codexProvider
      : { baseUrl: `${egressBaseUrl(gateway)}/v1`, envKey: "OPENAI_API_KEY", ...(gateway.codexModel === undefined ? {} : { model: gateway.codexModel }) };
  // One working directory for the container and for codex's --cd: the staged workspace's.
  const workdir = options.staging?.agentWorkdir ?? DEFAULT_AGENT_WORKDIR;
  const codexProvider = declaredProvider === undefined ? undefined : { ...declaredProvider, maxRetries: declaredProvider.maxRetries ?? apiRetries };
  /** Live proxied Runs by their id, for the proxy's breach reports. */
  const atSource = new Map<string, (breach: EgressBreach) => void>();
  let listening = false;
  /** One listener for the runner's whole life; each Run waits until the breach stream is open, so no breach of it is missed. */
  const hearBreaches = async (proxy: EgressGateway): Promise<void> => {
    if (!listening) {
      proxy.onBreach((breach) => atSource.get(breach.runId)?.(breach));
      listening = true;
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`its breach event stream did not open within ${EGRESS_EVENTS_OPEN_MS} ms (EGRESS_EVENTS_OPEN_MS); is the proxy running?`)),
        EGRESS_EVENTS_OPEN_MS,
      );
    });
    await Promise.race([proxy.eventsOpen(), late]).finally(() => clearTimeout(timer));
  };
  const container: AgentContainer = {
    image: options.image,
    // Both CLIs' public variables: each ignores the other's.
    publicEnv: {
      ...publicEnvironment("codex"),
      ...publicEnvironment("claude", anthropicBaseUrl === undefined ? {} : { anthropicBaseUrl }),
      CLAUDE_CODE_MAX_RETRIES: String(apiRetries),
      ...(gateway !== undefined && policy === "allowlist" ? publicProxyEnvironment(gateway) : {}),
    },
    ...(options.staging === undefined ? {} : { staging: options.staging }),
    workdir,
    ...(options.networks === undefined ? {} : { networks: options.networks }),
    ...(options.containerRuntime === undefined ? {} : { containerRuntime: options.containerRuntime }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.user === undefined ? {} : { user: options.user }),
    ...(options.owner === undefined ? {} : { owner: options.owner }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  };
  let runtime: AgentContainerRuntime<AgentResult, PlannedRequest>;
  try {
    runtime = makeRuntime();
  } catch (error) {
    throw error instanceof AgentContainerError ? inRunnerWords(error) : error;
  }
  function makeRuntime(): AgentContainerRuntime<AgentResult, PlannedRequest> {
    return createAgentContainerRuntime<AgentResult, PlannedRequest>({
      container,
      ...(options.maxConcurrentRuns === undefined ? {} : { maxConcurrentRuns: options.maxConcurrentRuns }),
      ...(options.docker === undefined ? {} : { docker: options.docker }),
      ...(options.engine === undefined ? {} : { engine: options.engine }),
      run: (prompt, { mask }) => {
        const { request, onEvent, onEventFailed, watch, attach } = prompt.request;
        // The caller's callback failing is the caller's bug: reported in the Outcome, never the Run's end.
        let failed = false;
        const tell = (masked: AgentEvent): void => {
          if (failed || onEvent === undefined) return;
          try {
            onEvent(masked);
          } catch (error) {
            failed = true;
            onEventFailed?.(error);
          }
        };
        // Events the runner makes (a stall warning) are masked like the agent's.
        attach?.((event) => tell(mask(event)));
        // Each event is masked once; the guards see it masked (a guard may quote one in the Outcome), whether or not the caller listens.
        const live = {
          onEvent: (event: AgentEvent) => {
            const masked = mask(event);
            const added = watch(masked);
            tell(masked);
            for (const extra of added) tell(mask(extra));
          },
        };
        return request.cli === "claude"
          ? { args: claudeArgs(request), stdin: prompt.text, request, exitGraceMs: EXIT_AFTER_RESULT_MS, outcome: (stdout) => parseClaudeStream(stdout, live) }
          : {
              args: codexArgs(request, { workdir, keepSession: keepSessions, ...(codexProvider === undefined ? {} : { provider: codexProvider }) }),
              stdin: prompt.text,
              request,
              exitGraceMs: EXIT_AFTER_RESULT_MS,
              outcome: (stdout) => parseCodexStream(stdout, { ...live, ...(request.model === undefined ? {} : { model: request.model }) }),
            };
      },
    });
  }

  /** The request and its credential, or the Outcome that ends the Run before it starts. */
  type Found = Exclude<Credential, { kind: "none" }>;
  /** `named`: no credential found is no refusal; the request comes back with none (commandFor names where one goes). */
  const prepareAny = async (input: AgentRequestInput, named: boolean): Promise<{ request: AgentRequest; credential: Found | undefined } | AgentOutcome> => {
    let request: AgentRequest;
    try {
      request = parseAgentRequest(input);
    } catch (error) {
      return refused("invalid_request", (error as AgentRequestError).message, "none");
    }
    if (request.resumeSession !== undefined && !keepSessions) {
      return refused(
        "invalid_request",
        `resumeSession ${JSON.stringify(request.resumeSession)} cannot be resumed: this runner keeps no sessions; create it with sessions: true (and staging) so each session outlives its container`,
        "none",
        request.cli,
      );
    }
    const unheld = unheldCaps(
      request.cli,
      request.budget,
      gateway !== undefined ? (policy as "model" | "allowlist") : options.networks !== undefined ? "declared" : (policy as "none" | "open"),
    );
    if (unheld !== undefined) return refused("invalid_request", unheld, "none", request.cli);
    let credential: Credential;
    try {
      const gatewayKey = request.cli === "codex" ? codexProvider?.envKey : undefined;
      credential = await findCredential(request.cli, {
        ...(gatewayKey === undefined ? {} : { preferred: [[gatewayKey, "api_key"]] }),
        ...(options.environment === undefined ? {} : { environment: options.environment }),
        ...(options.secretsDirectory === undefined ? {} : { secretsDirectory: options.secretsDirectory }),
        // A login speaks to the CLI's own provider; a gateway or stand-in takes a key.
        ...(options.codexLoginDirectory === undefined || codexProvider !== undefined ? {} : { codexLoginDirectory: options.codexLoginDirectory }),
      });
    } catch (error) {
      return refused("unavailable", error instanceof CredentialError ? error.message : String(error), "none", request.cli);
    }
    if (credential.kind === "none") {
      if (named) return { request, credential: undefined };
      const names = CREDENTIAL_VARIABLES[request.cli].map(([variable]) => variable);
      return refused(
        "unavailable",
        `no credential for ${request.cli}: set ${names.map((n) => `$${n}`).join(" or ")}` +
          (options.secretsDirectory === undefined
            ? ""
            : `, or write one of ${names.map((n) => JSON.stringify(`${options.secretsDirectory}/${n.toLowerCase()}`)).join(", ")} (mode 0600)`),
        "none",
        request.cli,
      );
    }
    return { request, credential };
  };
  const prepare = (input: AgentRequestInput) => prepareAny(input, false) as Promise<{ request: AgentRequest; credential: Found } | AgentOutcome>;

  return {
    run: async (input, prompt, runOptions = {}, ...extra: never[]) => {
      const misuse = checkRunCall(prompt, runOptions, extra);
      if (misuse !== undefined) return refused("invalid_request", misuse, "none");
      // A refusal before the runtime carries the caller's id too: one Run, one id.
      const named = (outcome: AgentOutcome): AgentOutcome => (runOptions.runId === undefined ? outcome : { ...outcome, runId: runOptions.runId });
      const prepared = await prepare(input);
      if ("runId" in prepared) return named(prepared);
      const { request, credential } = prepared;
      let proxied: ProxiedRun | undefined;
      if (gateway !== undefined) {
        if (credential.kind === "login") {
          return named(
            refused(
              "unavailable",
              `a codex ChatGPT login cannot be kept out of the agent's container by the egress proxy (network policy ${JSON.stringify(policy)}); give codex an API key ($OPENAI_API_KEY), or use the "open" policy for a login`,
              credential.kind,
              request.cli,
            ),
          );
        }
        try {
          await hearBreaches(gateway);
          proxied = await registerProxiedRun(gateway, request, credential, policy as "model" | "allowlist", options.allowlist ?? [], runOptions.runId);
        } catch (error) {
          return named(
            refused(
              "unavailable",
              `the egress proxy did not take the Run: ${error instanceof Error ? error.message : String(error)}`,
              credential.kind,
              request.cli,
            ),
          );
        }
      }
      let onEventError: string | undefined;
      const guard = createRunGuard(request, runOptions.signal);
      if (proxied !== undefined) {
        atSource.set(proxied.runId, (breach) => guard.exceededAtSource(breach.cap as BudgetCap, `the egress proxy refused a model call: ${breach.message}`));
      }
      let tell: ((event: AgentEvent) => void) | undefined;
      const planned: PlannedRequest = {
        request,
        watch: guard.watch,
        attach: (deliver) => (tell = deliver),
        ...(runOptions.onEvent === undefined ? {} : { onEvent: runOptions.onEvent }),
        onEventFailed: (error) => {
          onEventError = credentialMasked(
            `the caller's onEvent threw: ${error instanceof Error ? error.message : String(error)}; the Run went on without it`,
            credential,
          );
          options.logger?.warn({ err: onEventError }, "onEvent threw");
        },
      };
      let ran: Outcome<AgentResult>;
      let meter: RunMeter | undefined;
      const metering = proxied === undefined ? undefined : watchMeter(gateway as EgressGateway, proxied, (event) => tell?.(event), guard.unavailable);
      try {
        ran = await runtime.run(
          { text: prompt, request: planned, ...(request.resumeSession === undefined ? {} : { session: request.resumeSession }) },
          {
            timeoutSeconds: request.timeoutSeconds,
            ...(proxied === undefined
              ? handOver(request.cli, credential, codexProvider)
              : { runId: proxied.runId, network: proxied.network, env: proxied.env }),
            ...(policy === "open" ? { network: { kind: "open" as const } } : {}),
            ...pick(runOptions),
            signal: guard.signal,
            stallSeconds: request.stallSeconds,
            onStallWarning: ({ silentMs }) => {
              const last = guard.lastEvent();
              tell?.({
                type: "stall_warning",
                silentSeconds: Math.round(silentMs / 1000),
                stallSeconds: request.stallSeconds,
                ...(last === undefined ? {} : { lastEvent: last }),
              });
            },
            ...(keepSessions ? { sessionStore: sessionStoreOf(request) } : {}),
          },
        );
      } finally {
        guard.dispose();
        metering?.stop();
        if (proxied !== undefined) {
          atSource.delete(proxied.runId);
          // The token dies with the Run; what it spent is the proxy's count.
          meter = await proxied.revoke().catch((error: unknown) => {
            options.logger?.error(
              { runId: proxied?.runId, err: error instanceof Error ? error.message : String(error) },
              "the egress proxy did not revoke the Run's token",
            );
            return undefined;
          });
          // The last word on what the Run spent, as an event too, however short the Run was.
          if (meter !== undefined) tell?.({ type: "metered", turns: meter.turns, usage: meter.usage, costUsd: meter.costUsd, refused: meter.refused });
        }
      }
      const guarded = guard.finish(ran.reason, ran.result);
      const last = guard.lastEvent();
      const outcome: Outcome<AgentResult> = {
        ...ran,
        reason: guarded.reason,
        ...(guarded.result === undefined ? {} : { result: guarded.result }),
        ...(ran.reason === "stalled" && last !== undefined ? { error: `${ran.error ?? "the agent stalled"}; the last event it printed: ${last}` } : {}),
      };
      return {
        ...(policy === "none" && options.networks === undefined
          ? withNetworkHint(outcome)
          : policy !== "none" && options.containerRuntime !== undefined
            ? withRuntimeHint(outcome, options.containerRuntime, policy)
            : outcome),
        ...(guarded.budget === undefined ? {} : { budget: guarded.budget }),
        network: { policy: options.networks === undefined ? policy : "declared", ...(meter === undefined ? {} : { meter }) },
        credential: credential.kind,
        cli: request.cli,
        // Masked like everything else the Run hands back: the callback may have quoted an event.
        ...(onEventError === undefined ? {} : { onEventError: credentialMasked(onEventError, credential) }),
      };
    },
    commandFor: async (input, prompt, ...extra: never[]) => {
      const misuse = checkRunCall(prompt, undefined, extra);
      if (misuse !== undefined) throw new AgentRunnerError(misuse.replace(/^run takes \(request, prompt, options\)/, "commandFor takes (request, prompt)"));
      const prepared = await prepareAny(input, true);
      if ("runId" in prepared) throw new AgentRequestError(prepared.error ?? prepared.reason);
      const { request, credential } = prepared;
      // No credential here is no reason to refuse a plan: it names the variable a Run would read
      // (`--env NAME`, its value from the environment of whoever runs the words).
      const handed =
        credential === undefined
          ? { env: { [agentVariable(request.cli, CREDENTIAL_VARIABLES[request.cli][0]?.[0] ?? "", codexProvider)]: "" } }
          : handOver(request.cli, credential, codexProvider);
      return runtime.commandFor({ text: prompt, request: { request, watch: () => [] } satisfies PlannedRequest }, handed);
    },
    sweep: runtime.sweep,
    holdSession: (request) =>
      keepSessions && typeof request.resumeSession === "string" && typeof request.cli === "string"
        ? runtime.holdSessionStore(request.cli, request.resumeSession)
        : () => undefined,
    check: async () => {
      const kinds = {} as Record<AgentCli, CredentialKind>;
      for (const cli of AGENT_CLIS) {
        const found = await prepare({ cli });
        kinds[cli] = "runId" in found ? "none" : found.credential.kind;
      }
      return { ...(await runtime.check()), credentials: kinds };
    },
  };
}

/**
 * How the credential reaches the agent (a login as a read-only file, a key in one variable), and
 * what of it the runtime masks in this Run only: the file's content, and every token inside it.
 */
function handOver(
  cli: AgentCli,
  credential: Exclude<Credential, { kind: "none" }>,
  provider: CodexProvider | undefined,
): Pick<RunOptions, "env" | "secretFiles" | "secrets"> {
  if (credential.kind === "login") return { secretFiles: [credential.file], secrets: credential.tokens };
  return { env: { [agentVariable(cli, credential.variable, provider)]: credential.value } };
}

/** The variable the agent reads its key from: a codex provider names its own; otherwise where it was found. */
function agentVariable(cli: AgentCli, found: string, provider: CodexProvider | undefined): string {
  return cli === "codex" && provider !== undefined ? (provider.envKey ?? "OPENAI_API_KEY") : found;
}

/** Where each CLI keeps what resuming needs, found with the real CLIs: claude's projects/ (one log per session), codex's sessions/ (rollouts). */
function sessionStoreOf(request: AgentRequest): SessionStoreOptions {
  const agentPath = request.cli === "claude" ? `${CLAUDE_CONFIG_DIR}/projects` : `${CODEX_HOME}/sessions`;
  return { namespace: request.cli, agentPath, ...(request.resumeSession === undefined ? {} : { resume: request.resumeSession }) };
}

/**
 * While a proxied Run goes on, the proxy's meter as `metered` events, each time it changed: the
 * provider's own counts, even for a CLI that prints its usage only at the end.
 */
function watchMeter(gateway: EgressGateway, proxied: ProxiedRun, tell: (event: AgentEvent) => void, gone: (message: string) => void): { stop: () => void } {
  const { runId } = proxied;
  let last = "";
  let stopped = false;
  let missed = 0;
  const read = async (): Promise<void> => {
    let meter: RunMeter | undefined;
    let failure: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      // A proxy that hangs is as gone as one that died: a reading is given up after a while.
      const late = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${METER_READ_TIMEOUT_MS} ms`)), METER_READ_TIMEOUT_MS)),
      );
      meter = await Promise.race([gateway.meter(runId), late]);
      if (meter === undefined) failure = "no longer knows the Run (it restarted, and the Run's token died with it)";
    } catch (error) {
      const code = /\b(E[A-Z]{3,})\b/.exec(error instanceof Error ? error.message : String(error))?.[1];
      failure = `does not answer on its control endpoint${code === undefined ? "" : ` (${code})`}`;
    } finally {
      clearTimeout(timer);
    }
    // Revoked (the agent is gone): what is left of the Run (its out/ copied back, its Harvest) needs no proxy.
    if (stopped || proxied.revoked()) return;
    if (failure !== undefined) {
      // The agent cannot reach its model any more: end the Run now, not when the CLI gives up.
      missed += 1;
      if (missed >= EGRESS_GONE_AFTER_MISSES) gone(`the egress proxy went away: it ${failure}; the Run cannot reach its model without it`);
      return;
    }
    missed = 0;
    if (meter === undefined) return;
    proxied.observe(meter);
    const seen = JSON.stringify([meter.turns, meter.tokens, meter.usage.cacheReadTokens, meter.refused]);
    if (seen === last) return;
    last = seen;
    tell({ type: "metered", turns: meter.turns, usage: meter.usage, costUsd: meter.costUsd, refused: meter.refused });
  };
  const timer = setInterval(() => void read(), METER_EVENT_INTERVAL_MS);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** A Run under another container runtime that could not reach its model: that runtime may have no network on this engine. */
function withRuntimeHint(outcome: Outcome<AgentResult>, runtime: string, policy: NetworkPolicy): Outcome<AgentResult> {
  if (outcome.ok || !unreachedModel(outcome)) return outcome;
  const hint =
    `the container runtime ${JSON.stringify(runtime)} may give the agent no network on this engine (gVisor registered with --network=none does), ` +
    `so network policy ${JSON.stringify(policy)} cannot reach the model under it; use the "none" policy with it, or the engine's default runtime (see the README on runtimes and policies)`;
  return { ...outcome, error: outcome.error === undefined ? hint : `${outcome.error}; ${hint}` };
}

function unreachedModel(outcome: Outcome<AgentResult>): boolean {
  return (
    outcome.reason === "timeout" || outcome.result?.reason === "api_error" || outcome.result?.reason === "no_result" || outcome.result?.reason === "overloaded"
  );
}

/** A failed Run whose container could reach nothing says so, and what to declare. */
function withNetworkHint(outcome: Outcome<AgentResult>): Outcome<AgentResult> {
  if (outcome.ok || !unreachedModel(outcome)) return outcome;
  const hint =
    'the agent container has no network (network policy "none"), so the CLI could not reach its model; ' +
    'choose networkPolicy "model" with the egress proxy, or "open" (see the README on network policies)';
  return { ...outcome, error: outcome.error === undefined ? hint : `${outcome.error}; ${hint}` };
}

/** The credential's value (and a login's tokens) out of a text the caller's callback wrote, in every spelling the masker knows. */
function credentialMasked(text: string, credential: Exclude<Credential, { kind: "none" }>): string {
  const values =
    credential.kind === "login"
      ? [...(typeof credential.file.content === "string" ? [credential.file.content] : []), ...credential.tokens]
      : [credential.value];
  return createMasker(values).mask(text);
}

function pick(options: AgentRunOptions): Pick<RunOptions, "signal" | "inputs" | "harvestTo" | "replaceHarvestTo" | "runId"> {
  return {
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(options.replaceHarvestTo === undefined ? {} : { replaceHarvestTo: options.replaceHarvestTo }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.inputs === undefined ? {} : { inputs: options.inputs }),
    ...(options.harvestTo === undefined ? {} : { harvestTo: options.harvestTo }),
  };
}

function refused(reason: "invalid_request" | "unavailable", error: string, credential: CredentialKind, cli?: AgentCli): AgentOutcome {
  // No secret can be in these messages (a request's fields, a secrets file's path).
  return { ...refusedOutcome<AgentResult>(reason, error), credential, ...(cli === undefined ? {} : { cli }) };
}
