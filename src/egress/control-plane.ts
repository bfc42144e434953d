// EgressControl: what the runtime needs of the proxy, the same in process and over the control
// endpoint (control.ts, control-client.ts). Here it is wired to the proxy's own Run registry.
// Invariant: every answer is a promise, so an in-process caller and a remote one see one contract.

import type { ProxyState } from "./proxy-state.js";
import type { EgressBreach, RunMeter, RunRegistration } from "./run.js";
import { bindRun, registerRun, revokeRun } from "./run-registry.js";

/** What the runtime needs of the proxy, in process or over the control endpoint alike. */
export type EgressControl = {
  /** Registers a Run; resolves with its token, which the agent presents instead of a credential. Rejects a Run id already registered. */
  readonly register: (registration: RunRegistration) => Promise<{ readonly token: string }>;
  /** Kills the Run's token at once, cuts its requests and tunnels in flight, and resolves with its final meter (undefined when unknown). */
  readonly revoke: (runId: string) => Promise<RunMeter | undefined>;
  /** The Run's usage so far (undefined when unknown or revoked). */
  readonly meter: (runId: string) => Promise<RunMeter | undefined>;
  /** Calls the listener once per Run that passes a cap; returns the unsubscribe. */
  readonly onBreach: (listener: (breach: EgressBreach) => void) => () => void;
  /**
   * Binds a live Run's token to where its agent is (its Run's network, as addresses or CIDR
   * ranges): from anywhere else the token is refused. Resolves false when the Run is unknown.
   */
  readonly bind: (runId: string, sources: readonly string[]) => Promise<boolean>;
};

export function controlOf(state: ProxyState): EgressControl {
  return {
    register: async (value) => registerRun(state, value),
    revoke: async (runId) => revokeRun(state, runId),
    meter: async (runId) => state.runs.get(runId)?.meter.reading(),
    bind: async (runId, sources) => bindRun(state, runId, sources),
    onBreach: (listener) => {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
  };
}
