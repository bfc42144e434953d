// Which runner a request goes to, and the session store a Run will resume held from this process's
// sweeps from its submit (or its recovery) until it ends. Invariant: a hold is released when its
// Run ends or could not start, and when a drain leaves its Run queued on disk (the next start holds it again).

import type { AgentRunner } from "../../runner/index.js";
import type { ServiceRunRequest } from "./run-service-options.js";
import type { RunsBook } from "./runs-state.js";

/** The writable runner for `writable: true`, when there is one; the runner otherwise. */
export function runnerFor(state: RunsBook, request: ServiceRunRequest): AgentRunner {
  return request.writable === true && state.options.writableRunner !== undefined ? state.options.writableRunner : state.options.runner;
}

export function holdSession(state: RunsBook, id: string, request: ServiceRunRequest): void {
  if (request.resumeSession !== undefined) state.heldSessions.set(id, runnerFor(state, request).holdSession(request));
}

export function releaseSession(state: RunsBook, id: string): void {
  state.heldSessions.get(id)?.();
  state.heldSessions.delete(id);
}
