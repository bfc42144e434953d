// A Run's container under its guards: the budget and wall clock fed from every event, the egress
// proxy's breaches and meter, the stall warning; then the Run's token revoked and its meter read.
// Invariant: whatever the container run did, the guards are disposed, the meter watch stopped and
// the token revoked before the Run's Outcome is assembled.

import type { Outcome } from "../plan/index.js";
import type { RunOptions } from "../runtime/index.js";
import type { RunMeter } from "../egress/index.js";
import type { AgentEvent, AgentRequest, AgentResult, BudgetCap } from "../agents/index.js";
import type { RunnerContext } from "./context.js";
import { createRunGuard, type RunGuard } from "./guard.js";
import { credentialMasked, handOver, keyHelperFor, sessionStoreOf } from "./hand-over.js";
import { GoneError, whileAlive } from "../liveness/index.js";
import { METER_READ_SLOW_MS } from "./limits.js";
import { watchMeter, type MeterWatch } from "./meter.js";
import { proxyGone as proxyShownGone } from "./proxy-degradation.js";
import type { ProxiedRun, UnplacedProxiedRun } from "./network-policy.js";
import type { Prepared } from "./prepare.js";
import type { PlannedRequest } from "./run-plan.js";
import type { AgentRunOptions } from "./runner-options.js";
import type { RunTrace } from "../trace/index.js";

/** What the container run left for the Outcome: the runtime's own, the guard that watched it, the proxy's last meter reading. */
export type Ran = {
  readonly ran: Outcome<AgentResult>;
  readonly guard: RunGuard;
  readonly meter: RunMeter | undefined;
  /** The first error the caller's onEvent threw, masked. */
  readonly onEventError: string | undefined;
};

/**
 * The Run's place at the egress proxy before its container: a Run registered (or to be, at its
 * claim), none (no proxy), or over several engines one to register with its engine's proxy once placed.
 */
export type EnteredProxy = { readonly proxied: ProxiedRun | undefined; readonly unplaced?: UnplacedProxiedRun };

/** The Run's guards, the request its plan function gets, and the Run's way to tell the caller an event once the plan attached it. */
type RunWatch = {
  readonly guard: RunGuard;
  readonly planned: PlannedRequest;
  readonly tell: (event: AgentEvent) => void;
  readonly onEventError: () => string | undefined;
};

export async function runGuarded(
  context: RunnerContext,
  prepared: Prepared,
  entered: EnteredProxy,
  prompt: string,
  runOptions: AgentRunOptions,
  trace: RunTrace,
): Promise<Ran> {
  const { request } = prepared;
  // Over several engines the Run is registered once placed: from then on it is proxied like any other.
  const held: { proxied: ProxiedRun | undefined } = { proxied: entered.proxied };
  const watch = watchRun(context, prepared, entered.proxied?.runId ?? entered.unplaced?.runId, runOptions);
  let ran: Outcome<AgentResult>;
  let meter: RunMeter | undefined;
  let proxyGone: string | undefined;
  // The meter is read once the proxy knows the Run: now, at its claim (head starts), or once placed (engines).
  let metering: MeterWatch | undefined;
  const meterFrom = (): void => {
    const { proxied } = held;
    if (proxied === undefined || metering !== undefined) return;
    const gone = (message: string, why: string): void => {
      // The runner's one proxy gone stops every Run after this one: said on the board, once.
      const { degradations } = context.settings.options;
      if (degradations !== undefined && proxied.gateway === context.settings.gateway) proxyShownGone(degradations, proxied.gateway, why);
      watch.guard.unavailable(message);
    };
    metering = watchMeter(proxied.gateway, proxied, watch.tell, gone, watch.guard.answered);
  };
  if (held.proxied?.registered() === true) meterFrom();
  try {
    ran = await context.runtime.run(
      { text: prompt, request: watch.planned, ...(request.resumeSession === undefined ? {} : { session: request.resumeSession }) },
      { ...(await runtimeOptions(context, prepared, entered, held, runOptions, watch, meterFrom)), trace },
    );
  } finally {
    watch.guard.dispose();
    metering?.stop();
    if (held.proxied !== undefined) ({ meter, proxyGone } = await endProxiedRun(context, held.proxied, watch.tell));
  }
  return { ran: proxyGone === undefined ? ran : blamedOnProxy(ran, proxyGone), guard: watch.guard, meter, onEventError: watch.onEventError() };
}

/**
 * A Run that failed on its own while its proxy was gone failed for want of the proxy: the CLI saw
 * its connection refused before the meter's readings missed often enough to end it (a race the
 * CLI wins when it retries at once). It ends unavailable, as one the meter ended does.
 */
function blamedOnProxy(ran: Outcome<AgentResult>, proxyGone: string): Outcome<AgentResult> {
  if (ran.reason !== "failed") return ran;
  return { ...ran, reason: "unavailable", error: `${proxyGone}${ran.error === undefined ? "" : `; the agent said: ${ran.error}`}` };
}

/** The Run's watch; `proxiedRunId`: the id the egress proxy knows it by, whose breaches end it. */
function watchRun(context: RunnerContext, { request, credential }: Prepared, proxiedRunId: string | undefined, runOptions: AgentRunOptions): RunWatch {
  // A backend that writes no tmpfs secret (a Pod runs no launcher) gets the key in one variable, from the Run's Secret.
  const tmpfs = context.settings.backend.refusal({ needs: "tmpfsSecrets", asked: "tmpfsSecrets" }) === undefined;
  const keyHelper = tmpfs ? keyHelperFor(request.cli, credential, context.settings.policy) : undefined;
  const guard = createRunGuard(request, runOptions.signal);
  if (proxiedRunId !== undefined) {
    context.breaches.atSource(proxiedRunId, (breach) =>
      guard.exceededAtSource(breach.cap as BudgetCap, `the egress proxy refused a model call: ${breach.message}`),
    );
  }
  let deliver: ((event: AgentEvent) => void) | undefined;
  let onEventError: string | undefined;
  const planned: PlannedRequest = {
    request,
    watch: guard.watch,
    attach: (given) => (deliver = given),
    ...(keyHelper === undefined ? {} : { keyHelper }),
    ...(runOptions.onEvent === undefined ? {} : { onEvent: runOptions.onEvent }),
    onEventFailed: (error) => {
      onEventError = credentialMasked(
        `the caller's onEvent threw: ${error instanceof Error ? error.message : String(error)}; the Run went on without it`,
        credential,
      );
      context.settings.options.logger?.warn({ err: onEventError }, "onEvent threw");
    },
  };
  return { guard, planned, tell: (event) => deliver?.(event), onEventError: () => onEventError };
}

/** The runtime's options for the Run: the credential handed over (or the proxy's token and network), the caller's, the guards'. */
async function runtimeOptions(
  context: RunnerContext,
  { request, credential }: Prepared,
  entered: EnteredProxy,
  held: { proxied: ProxiedRun | undefined },
  runOptions: AgentRunOptions,
  watch: RunWatch,
  meterFrom: () => void,
): Promise<RunOptions> {
  const { policy, keepSessions, endpoints } = context.settings;
  const { proxied, unplaced } = entered;
  return {
    timeoutSeconds: request.timeoutSeconds,
    ...(unplaced !== undefined
      ? placedOptions(unplaced, held, meterFrom)
      : proxied === undefined
        ? handOver(request.cli, credential, endpoints[request.cli], watch.planned.keyHelper)
        : await proxiedOptions(context, request, proxied, meterFrom)),
    ...(policy === "open" ? { network: { kind: "open" as const } } : {}),
    ...pick(runOptions),
    signal: watch.guard.signal,
    stallSeconds: request.stallSeconds,
    onStallWarning: ({ silentMs }) => {
      const last = watch.guard.lastEvent();
      watch.tell({
        type: "stall_warning",
        silentSeconds: Math.round(silentMs / 1000),
        stallSeconds: request.stallSeconds,
        ...(last === undefined ? {} : { lastEvent: last }),
      });
    },
    ...(keepSessions ? { sessionStore: sessionStoreOf(request) } : {}),
  };
}

/**
 * A proxied Run's network and token: registered already, or (head starts) at its claim, under the
 * token its member was started with when it offers one.
 */
async function proxiedOptions(context: RunnerContext, request: AgentRequest, proxied: ProxiedRun, meterFrom: () => void): Promise<RunOptions> {
  const base = { runId: proxied.runId, network: proxied.network };
  const { headStarts } = context;
  if (headStarts === undefined) return { ...base, env: await proxied.register() };
  return {
    ...base,
    envAtClaim: async (offered) => {
      try {
        const token = headStarts.offeredToken(request, offered);
        const env = await proxied.register(token);
        meterFrom();
        if (token !== undefined && !Object.values(env).includes(token)) {
          // A proxy older than caller-chosen tokens answers one of its own: the Run goes on with it, its head start unused.
          context.settings.options.logger?.warn({ runId: proxied.runId }, "the egress proxy did not take the member's token; its head start goes unused");
        }
        return env;
      } catch (error) {
        throw new Error(`the egress proxy did not take the Run: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}

/**
 * Over several engines: the Run's network and token made on the proxy of the engine it is placed
 * on, once it is (the runtime's atPlacement); the Run is held as proxied from then on, so its token
 * is revoked whatever happens next. A proxy that does not take the Run is checked, and started again
 * when it is gone, once: the Run goes on with the new one.
 */
function placedOptions(unplaced: UnplacedProxiedRun, held: { proxied: ProxiedRun | undefined }, meterFrom: () => void): RunOptions {
  const registerOn = async (engine: string, recheck: boolean): Promise<Record<string, string>> => {
    const proxied = await unplaced.on(engine, recheck);
    held.proxied = proxied;
    return proxied.register();
  };
  return {
    runId: unplaced.runId,
    atPlacement: async (engine) => {
      if (engine === undefined) throw new Error("the Run was placed on no engine of the set, so it has no egress proxy");
      const env = await registerOn(engine, false).catch(() => registerOn(engine, true));
      meterFrom();
      return { env, network: (held.proxied as ProxiedRun).network };
    },
  };
}

/**
 * The token dies with the Run; what it spent is the proxy's count, told as the last `metered` event
 * however short the Run was. A revoke that fails blames the proxy only when it is shown gone (its
 * container not running, its socket refusing): a slow proxy is logged, never blamed.
 */
async function endProxiedRun(
  context: RunnerContext,
  proxied: ProxiedRun,
  tell: (event: AgentEvent) => void,
): Promise<{ meter: RunMeter | undefined; proxyGone: string | undefined }> {
  context.breaches.forget(proxied.runId);
  const { gateway } = proxied;
  let proxyGone: string | undefined;
  const meter = await whileAlive(proxied.revoke(), { gone: gateway.gone, checkEveryMs: METER_READ_SLOW_MS }).catch(async (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    const why = error instanceof GoneError ? error.why : await gateway.gone().catch(() => undefined);
    if (why !== undefined) proxyGone = `the egress proxy went away: it ${why}; the Run cannot reach its model without it`;
    context.settings.options.logger?.error(
      { runId: proxied.runId, err: message, ...(why === undefined ? {} : { gone: why }) },
      why === undefined
        ? "the egress proxy did not revoke the Run's token in time; it lives, so the Run is not blamed on it"
        : "the egress proxy did not revoke the Run's token: it is gone",
    );
    return undefined;
  });
  if (meter !== undefined) tell({ type: "metered", turns: meter.turns, usage: meter.usage, costUsd: meter.costUsd, refused: meter.refused });
  return { meter, proxyGone };
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
