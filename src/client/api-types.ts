// The API's requests and answers under the names a caller uses (Run, Outcome, RunRequest, ...),
// each taken from the types generated from the service's OpenAPI document, never written by hand:
// a change to the API changes them. The event stream's events, which the document carries as text,
// are typed here from what the service writes in them.

import type { AgentEvent } from "../agents/index.js";
import type { operations } from "./openapi-paths.js";

/** What POST /v1/runs takes: the agent request, its prompt, labels, a callback URL, ... */
export type RunRequest = operations["createRun"]["requestBody"]["content"]["application/json"];
/** A Run as the service answers it: its state, queue position, and its Outcome once it has ended. */
export type Run = operations["getRun"]["responses"][200]["content"]["application/json"];
/** The typed end of a Run. */
export type Outcome = NonNullable<Run["outcome"]>;
export type RunState = Run["state"];
/** One page of GET /v1/runs, newest first; `nextCursor` asks for the next. */
export type RunPage = operations["listRuns"]["responses"][200]["content"]["application/json"];
export type ListRunsQuery = NonNullable<operations["listRuns"]["parameters"]["query"]>;
/** What the Run was asked, as the service accepted it. */
export type AcceptedRequest = operations["getRunRequest"]["responses"][200]["content"]["application/json"];
/** The files a Run's Harvest took, and what it changed when its workspace was writable. */
export type Artifacts = operations["listArtifacts"]["responses"][200]["content"]["application/json"];
/** The warm pool's figures, or `{ enabled: false }`. */
export type PoolState = operations["getPool"]["responses"][200]["content"]["application/json"];
/** The service at a glance: version, readiness, slots, tenants' Runs and usage today. */
export type ServiceState = operations["getService"]["responses"][200]["content"]["application/json"];
/** What the service answers with a refusal: a code of agentcage's catalogue and one sentence. */
export type ErrorAnswer = operations["getRun"]["responses"][404]["content"]["application/json"];

/**
 * One event of a Run's stream. A snapshot of the Run (no id) opens each connection; then each
 * numbered event once, in order; the stream ends after the one `end`, which carries the Outcome.
 */
export type RunEvent =
  | { readonly type: "snapshot"; readonly id?: undefined; readonly data: Run }
  | { readonly type: "state"; readonly id: number; readonly data: { readonly state: RunState } }
  | { readonly type: "agent"; readonly id: number; readonly data: AgentEvent }
  | { readonly type: "end"; readonly id: number; readonly data: Outcome };
