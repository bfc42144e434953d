// The proxy's live Runs: registering one (a fresh token, its own copy of the registration, its
// meter), finding one by the token an agent presents, binding it to its Run's network, revoking it.
// Invariants: a Run id is registered once and at most MAX_LIVE_RUNS at a time; a revoked Run's
// token finds nothing from that moment, and whatever it had in flight is stopped.

import { credentialMasker } from "./answer-guard.js";
import { MAX_LIVE_RUNS } from "./limits.js";
import type { LiveRun } from "./live-run.js";
import { createMeter } from "./meter.js";
import type { ProxyState } from "./proxy-state.js";
import { EgressArgumentError, validateRegistration, validateSources, type RunMeter, type RunRegistration } from "./run.js";
import { sourceList } from "./sources.js";
import { newRunToken, tokenKey } from "./token.js";

/** Registers a Run and answers its token; throws EgressArgumentError for a bad or duplicate registration. */
export function registerRun(state: ProxyState, value: RunRegistration): { readonly token: string } {
  const registration = validateRegistration(value);
  if (state.runs.has(registration.runId)) {
    throw new EgressArgumentError(`runId ${JSON.stringify(registration.runId)} is already registered; revoke it first, or register each Run once`);
  }
  if (state.runs.size >= MAX_LIVE_RUNS) {
    throw new EgressArgumentError(
      `runId ${JSON.stringify(registration.runId)} is refused: ${MAX_LIVE_RUNS} Runs are registered already; revoke the Runs that ended`,
    );
  }
  const token = registration.token ?? newRunToken();
  const run = liveRunOf(registration, token);
  if (state.byToken.has(run.key)) {
    // Not quoted: the token is a secret, and another Run's.
    throw new EgressArgumentError(
      `runId ${JSON.stringify(registration.runId)} is refused: its token is held by a live Run already; make a new one with newRunToken()`,
    );
  }
  state.runs.set(registration.runId, run);
  state.byToken.set(run.key, run);
  state.secrets.add(registration.runId, token, registration.credential.value);
  state.logger.info(
    {
      runId: registration.runId,
      provider: registration.provider,
      ...(registration.cli === undefined ? {} : { cli: registration.cli }),
      credential: registration.credential.kind,
      budget: registration.budget ?? {},
      ...(registration.allowlist === undefined ? {} : { allowlist: registration.allowlist }),
    },
    "egress run registered",
  );
  return { token };
}

/** A Run as the proxy holds it, with a copy of its registration the caller cannot change. */
function liveRunOf(registration: RunRegistration, token: string): LiveRun {
  return {
    registration: {
      runId: registration.runId,
      provider: registration.provider,
      credential: { ...registration.credential },
      ...(registration.budget === undefined ? {} : { budget: { ...registration.budget } }),
      ...(registration.allowlist === undefined ? {} : { allowlist: [...registration.allowlist] }),
      ...(registration.sources === undefined ? {} : { sources: [...registration.sources] }),
    },
    key: tokenKey(token),
    meter: createMeter(registration.runId, registration.provider, registration.budget),
    answerMasker: credentialMasker(registration.credential.value),
    heldBytes: { held: 0 },
    requestsInFlight: 0,
    tunnels: 0,
    sources: registration.sources === undefined ? undefined : sourceList(registration.sources),
    inFlight: new Set(),
  };
}

/** The live Run whose token this is; undefined for none, or an unknown or revoked token. */
export function runOfToken(state: ProxyState, token: string | undefined): LiveRun | undefined {
  return token === undefined ? undefined : state.byToken.get(tokenKey(token));
}

/** Whether `run` is still its id's live Run: false once revoked (its token and budget went with it). */
export function isLive(state: ProxyState, run: LiveRun): boolean {
  return state.runs.get(run.registration.runId) === run;
}

/** Binds a live Run's token to where its agent is; false when the Run is unknown. Throws for bad sources. */
export function bindRun(state: ProxyState, runId: string, sources: readonly string[]): boolean {
  validateSources("sources", sources);
  const run = state.runs.get(runId);
  if (run === undefined) return false;
  run.sources = sourceList(sources);
  state.logger.info({ runId, sources }, "egress run bound to its network");
  return true;
}

/** Revokes a Run at once: its token, then everything it has in flight; answers its final meter. */
export function revokeRun(state: ProxyState, runId: string): RunMeter | undefined {
  const run = state.runs.get(runId);
  if (run === undefined) return undefined;
  state.runs.delete(runId);
  state.byToken.delete(run.key);
  state.secrets.drop(runId);
  for (const stop of [...run.inFlight]) stop();
  run.inFlight.clear();
  const reading = run.meter.reading();
  state.logger.info({ runId, turns: reading.turns, tokens: reading.tokens, costUsd: reading.costUsd }, "egress run revoked");
  return reading;
}
