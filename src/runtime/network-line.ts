// The line Run networks wait in: at most NETWORK_CALLS_AT_ONCE network set-ups and removals of this
// process on one engine at once, the rest waiting their turn in order. The engine answers each call
// in its own line, so more at once only makes every call slower and lets the 30 s bound on its
// answer count time spent behind the others. Invariant: a turn is held until the engine has
// answered what it was given (late or not, up to NETWORK_TURN_MAX_MS); a waiter whose Run ends
// (timeout, cancel) leaves the line.

import type { Engine } from "../engine/index.js";
import { NETWORK_CALLS_AT_ONCE, NETWORK_TURN_MAX_MS } from "./limits.js";

/** Gives the turn back; call it once the engine has answered every call made in it. */
export type Turn = () => void;

type Line = { busy: number; readonly waiting: Array<{ readonly start: () => void }> };

const lines = new WeakMap<Engine, Line>();

/**
 * Resolves with a turn once fewer than NETWORK_CALLS_AT_ONCE calls of this process are under way on
 * `engine`; rejects with the signal's reason when `signal` aborts first (the waiter has left the line).
 */
export function waitTurn(engine: Engine, signal?: AbortSignal): Promise<Turn> {
  let line = lines.get(engine);
  if (line === undefined) {
    line = { busy: 0, waiting: [] };
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
      held.waiting.shift()?.start();
    };
  };
  if (signal?.aborted) return Promise.reject(leftBecause(signal));
  if (held.busy < NETWORK_CALLS_AT_ONCE && held.waiting.length === 0) return Promise.resolve(turn());
  return new Promise<Turn>((resolve, reject) => {
    const waiter = {
      start: () => {
        signal?.removeEventListener("abort", leave);
        resolve(turn());
      },
    };
    const leave = (): void => {
      const at = held.waiting.indexOf(waiter);
      if (at >= 0) held.waiting.splice(at, 1);
      reject(leftBecause(signal as AbortSignal));
    };
    held.waiting.push(waiter);
    signal?.addEventListener("abort", leave, { once: true });
  });
}

/**
 * Gives the turn back once `answered` settles (the engine answered the last call made in it), or
 * after NETWORK_TURN_MAX_MS whatever happened: a call the engine lost must not keep its turn for ever.
 */
export function giveBack(turn: Turn, answered: Promise<unknown>): void {
  const timer = setTimeout(turn, NETWORK_TURN_MAX_MS);
  timer.unref();
  void answered
    .catch(() => undefined)
    .then(() => {
      clearTimeout(timer);
      turn();
    });
}

/** How many of this process's calls are under way on `engine`, and how many wait: for tests and the bench. */
export function lineOf(engine: Engine): { readonly busy: number; readonly waiting: number } {
  const line = lines.get(engine);
  return { busy: line?.busy ?? 0, waiting: line?.waiting.length ?? 0 };
}

function leftBecause(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error("the Run ended while its network waited its turn");
}
