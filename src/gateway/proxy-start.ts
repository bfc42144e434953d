// How the start of an egress proxy this process started waits for it to listen, on an engine or in
// a cluster (slow is not dead: docs/operations.md): it asks again and again for as long as the
// proxy's container runs, however long that is, and ends when the proxy answers, when its container
// is shown gone, or at a cancel. Invariant: no bound of its own; a late answer is never a dead proxy.

import { GoneError, whileAlive } from "../liveness/index.js";

/** How often a start still waiting asks whether the container is gone and tells onWaiting (on an idle machine; stretched by the load). */
export const START_CHECK_MS = 5000;

export type ProxyStartWait = {
  /** Whether the proxy listens now; a rejection counts as not yet (gone is asked then), and its message is kept for the sentence. */
  readonly listening: () => Promise<boolean>;
  /** Why the proxy's container is shown gone ("exited (code 137)", "was removed"), or undefined while it runs or cannot be told. Must not throw. */
  readonly gone: () => Promise<string | undefined>;
  /** Settles when something says the container may have ended (its output's end): gone is asked at once then, and a few times after. */
  readonly ended?: Promise<unknown>;
  /** Between two asks of listening. */
  readonly pollMs: number;
  /** Ends the wait when aborted. */
  readonly signal?: AbortSignal;
  /** Told every START_CHECK_MS or so that it still waits, and for how long so far. Must not throw. */
  readonly onWaiting?: (waitedMs: number) => void;
};

/** How the wait ended: the proxy listens, its container was shown gone (and what the last ask said), or it was cancelled (with the signal's reason). */
export type ProxyStartEnd =
  | { readonly kind: "listening" }
  | { readonly kind: "gone"; readonly why: string; readonly lastError: string }
  | { readonly kind: "cancelled"; readonly why: string };

const never = new Promise<never>(() => undefined);

export async function untilProxyListens(wait: ProxyStartWait): Promise<ProxyStartEnd> {
  let done = false;
  let lastError = "";
  let onAbort = (): void => undefined;
  const cancelled = new Promise<ProxyStartEnd>((resolve) => {
    onAbort = () => resolve({ kind: "cancelled", why: reasonOf(wait.signal) });
    if (wait.signal?.aborted === true) onAbort();
    else wait.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const polled = (async (): Promise<ProxyStartEnd> => {
    while (!done) {
      let refused = false;
      const answered = await wait.listening().catch((error: unknown) => {
        lastError = error instanceof Error ? error.message : String(error);
        refused = true;
        return false;
      });
      if (answered) return { kind: "listening" };
      // An ask refused (no bridge, no socket) is when to look whether the container went; a plain "not yet" is not.
      const why = refused && !done ? await wait.gone() : undefined;
      if (why !== undefined) return { kind: "gone", why, lastError };
      await new Promise((resolve) => setTimeout(resolve, wait.pollMs));
    }
    return never;
  })();
  // Its output ended: the container is ending (the engine may say so a moment later), or the
  // engine's connection dropped while it runs; the engine is asked a few times, soonest first.
  const askGone = async (): Promise<ProxyStartEnd> => {
    for (let delayMs = wait.pollMs; !done && delayMs <= START_CHECK_MS; delayMs *= 2) {
      const why = await wait.gone();
      if (why !== undefined) return { kind: "gone", why, lastError };
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return never;
  };
  const endedGone = (wait.ended ?? never).then(askGone, askGone);
  try {
    return await whileAlive(Promise.race([polled, cancelled, endedGone]), {
      gone: wait.gone,
      checkEveryMs: START_CHECK_MS,
      ...(wait.onWaiting === undefined ? {} : { onSlow: wait.onWaiting }),
    });
  } catch (error) {
    if (error instanceof GoneError) return { kind: "gone", why: error.why, lastError };
    throw error;
  } finally {
    done = true;
    wait.signal?.removeEventListener("abort", onAbort);
  }
}

/** What an aborted signal was aborted with, as words. */
function reasonOf(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "aborted";
}
