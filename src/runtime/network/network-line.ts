// The line Run networks wait in: at most NETWORK_CALLS_AT_ONCE network set-ups and removals of this
// process on one engine at once, the rest waiting their turn in order. The engine answers each call
// in its own line, so more at once only makes every call slower and lets the 30 s bound on its
// answer count time spent behind the others. Invariant: a turn is held until the engine has
// answered what it was given (late or not, up to NETWORK_TURN_MAX_MS stretched by the load); a waiter whose Run ends
// (timeout, cancel) leaves the line.

import type { Engine } from "../../engine/index.js";
import { patientTimer } from "../../liveness/index.js";
import { NETWORK_CALLS_AT_ONCE, NETWORK_TURN_MAX_MS } from "../limits.js";

/** Gives the turn back; call it once the engine has answered every call made in it. */
export type Turn = () => void;

/**
 * Who goes first when a turn comes free: a removal (it frees the proxy of a network, which makes
 * every later join cheaper, and ends a Run that is otherwise done), then a Run's own network, then a
 * pool member's made ahead. In order within each.
 */
export const NETWORK_CALL_KINDS = ["removal", "run", "ahead"] as const;
export type NetworkCallKind = (typeof NETWORK_CALL_KINDS)[number];

type Waiter = { readonly start: () => void };
type Line = { busy: number; readonly waiting: Record<NetworkCallKind, Waiter[]> };

const lines = new WeakMap<Engine, Line>();

/**
 * Resolves with a turn once fewer than NETWORK_CALLS_AT_ONCE calls of this process are under way on
 * `engine` and nobody who goes before `kind` waits; rejects with the signal's reason when `signal`
 * aborts first (the waiter has left the line).
 */
export function waitTurn(engine: Engine, kind: NetworkCallKind, signal?: AbortSignal): Promise<Turn> {
  let line = lines.get(engine);
  if (line === undefined) {
    line = { busy: 0, waiting: { removal: [], run: [], ahead: [] } };
    lines.set(engine, line);
  }
  const held = line;
  const turn = (): Turn => {
    held.busy++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      held.busy--;
      for (const each of NETWORK_CALL_KINDS) {
        const next = held.waiting[each].shift();
        if (next === undefined) continue;
        next.start();
        return;
      }
    };
  };
  if (signal?.aborted) return Promise.reject(leftBecause(signal));
  const ahead = NETWORK_CALL_KINDS.slice(0, NETWORK_CALL_KINDS.indexOf(kind) + 1).some((each) => held.waiting[each].length > 0);
  if (held.busy < NETWORK_CALLS_AT_ONCE && !ahead) return Promise.resolve(turn());
  const queue = held.waiting[kind];
  return new Promise<Turn>((resolve, reject) => {
    const waiter = {
      start: () => {
        signal?.removeEventListener("abort", leave);
        resolve(turn());
      },
    };
    const leave = (): void => {
      const at = queue.indexOf(waiter);
      if (at >= 0) queue.splice(at, 1);
      reject(leftBecause(signal as AbortSignal));
    };
    queue.push(waiter);
    signal?.addEventListener("abort", leave, { once: true });
  });
}

/**
 * Gives the turn back once `answered` settles (the engine answered the last call made in it), or
 * after NETWORK_TURN_MAX_MS (stretched by the load: a busy engine answers late, not never) whatever
 * happened: a call the engine lost must not keep its turn for ever.
 */
export function giveBack(turn: Turn, answered: Promise<unknown>): void {
  const timer = patientTimer(NETWORK_TURN_MAX_MS, turn);
  void answered
    .catch(() => undefined)
    .then(() => {
      timer.cancel();
      turn();
    });
}

/** How many of this process's calls are under way on `engine`, and how many wait: for tests and the bench. */
export function lineOf(engine: Engine): { readonly busy: number; readonly waiting: number } {
  const line = lines.get(engine);
  return { busy: line?.busy ?? 0, waiting: NETWORK_CALL_KINDS.reduce((sum, kind) => sum + (line?.waiting[kind].length ?? 0), 0) };
}

function leftBecause(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error("the Run ended while its network waited its turn");
}
