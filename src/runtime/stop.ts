// Stopping a Run: the one module that decides when a Run is ended early (its timeout, the caller's
// cancel, the output limit) and how its container is stopped (the stop signal, then SIGKILL after
// the grace period; SIGKILL at once past the output limit or a budget cap). The first cause wins
// and names the end; later ones change nothing. The deadline covers the whole Run, staging and the
// Harvest included, through `signal`.

import { describeBound, patientTimer, withinPatience, type HitBound } from "../liveness/index.js";
import { callerAbort } from "./misuse.js";

/** Why the runtime itself ended a Run early. */
export type Interruption = "timeout" | "cancelled" | "output_limit" | "budget_exceeded" | "stalled" | "unavailable";

/** How to stop this Run's container once it has started. */
export type ContainerStopper = {
  readonly kill: (signal: string) => void;
  /** The polite signal: the image's or extraArgs' stop signal, else SIGTERM. */
  readonly stopSignal: string;
  readonly graceMs: number;
};

export type RunStop = {
  /** Aborted at the first interruption; staging and the Harvest watch it. */
  readonly signal: AbortSignal;
  /** The first interruption and its sentence, once there is one. */
  readonly interruption: () => { readonly why: Interruption; readonly detail: string } | undefined;
  /** Resolves at the first interruption. */
  readonly interrupted: Promise<void>;
  /** Ends the Run early for `why`; the container is killed at once when `now`, else stopped politely. */
  readonly interrupt: (why: Interruption, detail: string, now?: boolean) => void;
  /** The container has started: an interruption (already here or still to come) stops it. */
  readonly containerStarted: (stopper: ContainerStopper) => void;
  /** Stops the container without ending the Run early (its reader failed): stop signal, then SIGKILL. */
  readonly stopContainer: () => void;
  /** Kills the container at once without ending the Run early (it answered and did not exit in time). */
  readonly killContainer: () => void;
  /** Whether the Run sent its container any signal (so a death by signal may be its own doing). */
  readonly signalled: () => boolean;
  /** The container has exited: no SIGKILL is due any more. */
  readonly containerExited: () => void;
  /** Clears every timer and listener; the Run is over. */
  readonly dispose: () => void;
};

export function createRunStop(options: { readonly timeoutMs: number; readonly signal?: AbortSignal }): RunStop {
  const controller = new AbortController();
  let first: { why: Interruption; detail: string } | undefined;
  let onInterrupted!: () => void;
  const interrupted = new Promise<void>((resolve) => (onInterrupted = resolve));
  let container: ContainerStopper | undefined;
  let stopping = false;
  let graceTimer: NodeJS.Timeout | undefined;

  const stopContainer = (now: boolean): void => {
    if (container === undefined) return;
    const c = container;
    if (now || c.graceMs === 0) {
      clearTimeout(graceTimer);
      stopping = true;
      c.kill("SIGKILL");
      return;
    }
    if (stopping) return;
    stopping = true;
    c.kill(c.stopSignal);
    graceTimer = setTimeout(() => c.kill("SIGKILL"), c.graceMs);
  };
  const interrupt = (why: Interruption, detail: string, now = false): void => {
    if (first !== undefined) return;
    first = { why, detail };
    controller.abort(new Error(detail));
    onInterrupted();
    stopContainer(now);
  };

  const timeoutTimer = setTimeout(() => interrupt("timeout", `the Run timed out after ${options.timeoutMs / 1000} s`), options.timeoutMs);
  const onAbort = (): void => {
    const { why, detail } = callerAbort(options.signal as AbortSignal);
    interrupt(why, detail, killedAtOnce(why));
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  return {
    signal: controller.signal,
    interruption: () => first,
    interrupted,
    interrupt,
    containerStarted: (stopper) => {
      container = stopper;
      if (first !== undefined) stopContainer(killedAtOnce(first.why));
    },
    stopContainer: () => stopContainer(false),
    killContainer: () => stopContainer(true),
    signalled: () => stopping,
    containerExited: () => {
      clearTimeout(graceTimer);
      container = undefined;
    },
    dispose: () => {
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Ends with no grace: past the output limit the agent's bytes are not wanted, and past a budget cap
 * every moment of grace is room for another paid model call.
 */
function killedAtOnce(why: Interruption): boolean {
  return why === "output_limit" || why === "budget_exceeded";
}

/**
 * A bound on waiting for an engine that may have stopped answering at all, once the Run's own end
 * is past: the Run's timeout and grace (the user's deadline, exact), then ENGINE_ANSWER_MARGIN_MS
 * (not a user's: stretched by the machine's load).
 */
export type EngineDeadline = {
  /** Resolves when the bound has passed. */
  readonly passed: Promise<void>;
  readonly hasPassed: () => boolean;
  /** The bound as it passed (or would, at this machine's load now): "2200 ms of the Run's start (...)". */
  readonly said: () => string;
  readonly cancel: () => void;
};

export function createEngineDeadline(userMs: number, marginIdleMs: number): EngineDeadline {
  let userTimer: NodeJS.Timeout | undefined;
  let margin: { readonly cancel: () => void } | undefined;
  let hit: HitBound | undefined;
  const passed = new Promise<void>((resolve) => {
    userTimer = setTimeout(() => {
      margin = patientTimer(marginIdleMs, (bound) => {
        hit = bound;
        resolve();
      });
    }, userMs);
  });
  const said = (): string => {
    const bound = hit ?? { idleMs: marginIdleMs, boundMs: marginIdleMs };
    return `${userMs + bound.boundMs} ms of the Run's start (its timeout and grace, ${userMs} ms, and ENGINE_ANSWER_MARGIN_MS, ${describeBound(bound)})`;
  };
  return {
    passed,
    hasPassed: () => hit !== undefined,
    said,
    cancel: () => {
      clearTimeout(userTimer);
      margin?.cancel();
    },
  };
}

/**
 * Rejects when `promise` has not settled within `idleMs` stretched by the machine's load (src/liveness):
 * the engine has no deadline of its own, and a busy host answers late, not never. The error says the
 * bound as it was hit.
 */
export function bounded<T>(promise: Promise<T>, idleMs: number, what: string): Promise<T> {
  return withinPatience(promise, idleMs, (hit) => new Error(`the engine did not answer ${what} within ${describeBound(hit)}`));
}

/** A signal that aborts once `idleMs`, stretched by the machine's load, has passed: AbortSignal.timeout for a bound that is not a user's deadline. */
export function patientSignal(idleMs: number, what: string): AbortSignal {
  const controller = new AbortController();
  patientTimer(idleMs, (hit) => controller.abort(new Error(`${what} took longer than ${describeBound(hit)}`)));
  return controller.signal;
}
