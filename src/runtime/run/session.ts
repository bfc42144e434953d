// The session step: a Run with a session store gets its working copy (the kept store of the
// session it resumes, or an empty one) and, once its container is gone, keeps what the agent left
// under the session id its reader named. A store that breaks the rules is not kept; the Outcome says.

import type { Outcome, ReaderVerdict } from "../../plan/index.js";
import type { Masker } from "../../redact/index.js";
import { keepSessionStore, SESSION_NAME, sessionStoreExists, touchSessionStore, type RunDirectory } from "../../staging/index.js";
import type { SessionStoreOptions } from "./run-options.js";

/**
 * Why the session to resume cannot be handed over, decided before anything is staged; undefined when
 * it can. Resuming is a use: the store's retention counts from now.
 */
export async function checkSessionToResume(runtimeDir: string, store: SessionStoreOptions): Promise<string | undefined> {
  if (
    store.resume === undefined ||
    (await touchSessionStore(runtimeDir, store.namespace, store.resume)) ||
    (await sessionStoreExists(runtimeDir, store.namespace, store.resume))
  )
    return undefined;
  return `session ${JSON.stringify(store.resume)} has no kept store of ${store.namespace} in this Staging Directory; pass the sessionId an earlier Outcome of this runner reported, or start a new session`;
}

export async function keepSession<R extends ReaderVerdict>(
  outcome: Outcome<R>,
  directory: RunDirectory,
  runtimeDir: string,
  store: SessionStoreOptions,
  masker: Masker,
): Promise<Outcome<R>> {
  const id = outcome.result?.sessionId;
  if (id === undefined || !SESSION_NAME.test(id)) {
    return {
      ...outcome,
      session: {
        kept: false,
        error:
          id === undefined ? "the agent named no session, so nothing was kept" : `the session id ${JSON.stringify(id)} is not a plain name; nothing was kept`,
      },
    };
  }
  // A Run may keep only the session it resumed, or a new one: an agent that names another session's
  // id (its stdout is the agent's to write) must not replace that session's store.
  if (id !== store.resume && (await sessionStoreExists(runtimeDir, store.namespace, id))) {
    return {
      ...outcome,
      session: { id, kept: false, error: `session ${JSON.stringify(id)} already has a store that this Run did not resume; nothing was kept` },
    };
  }
  const kept = await keepSessionStore(directory, runtimeDir, store.namespace, id).catch((error: unknown) => ({
    ok: false as const,
    refusal: { message: error instanceof Error ? error.message : String(error) },
  }));
  if (kept.ok) return { ...outcome, session: { id, kept: true } };
  return { ...outcome, session: { id, kept: false, error: masker.mask(`the session store was not kept: ${kept.refusal.message}`) } };
}
