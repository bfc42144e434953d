// A drained engine is given up on: once a lease's signal aborts, every call its Run makes to that
// engine, and every call still waiting on it, fails at once instead of waiting for an engine that
// may never answer (a host gone from the network holds a TCP call for minutes). What the Run left
// there is swept when the engine answers again (engine-set.ts).

import { engineNamed, type Engine } from "../../engine/index.js";

export function givenUpWhen(engine: Engine, signal: AbortSignal, name: string): Engine {
  const givenUp = new Promise<never>((_, reject) => {
    const refuse = (): void => reject(new Error(`the engine ${JSON.stringify(name)} was given up on: it stopped answering`));
    if (signal.aborted) refuse();
    else signal.addEventListener("abort", refuse, { once: true });
  });
  // Nobody may be waiting on it when it comes.
  givenUp.catch(() => undefined);
  const guarded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(engine)) {
    // Given up already: the engine is not asked at all.
    guarded[key] =
      typeof value === "function"
        ? (...args: unknown[]) =>
            signal.aborted
              ? givenUp
              : Promise.race([
                  givenUp,
                  // What fails says which engine: a Run's own call may find it gone before the pings do.
                  Promise.resolve((value as (...a: unknown[]) => unknown)(...args)).catch((error: unknown) => Promise.reject(engineNamed(error, name))),
                ])
        : value;
  }
  return guarded as Engine;
}
