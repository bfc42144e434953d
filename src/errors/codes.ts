// The catalogue: every code an agentcage error carries, and every code the service answers in the
// HTTP API's `error` field, each with its one-line meaning. The one place a code is declared.
// Invariant: a code, once released, keeps its name and meaning (callers branch on it); the
// table of docs/errors.md lists exactly these codes (codes.test.ts checks both ways).

/** Every code an agentcage error or the service's HTTP answer carries, with its one-line meaning; a released code keeps both. */
export const ERROR_CODES = {
  // What the service answers over HTTP, in `{ error, message }`.
  invalid_request:
    "the HTTP request breaks its schema or the service's rules (a field, a parameter, a cursor, an option it does not offer); the message names it (HTTP 400, or Fastify's own 4xx)",
  invalid_inputs:
    "the Run's input files were refused: an archive sent to the service (HTTP 400, 408, 413) or what the library stages; the message names the entry",
  unauthorized: "the route needs Authorization: Bearer <key>, and none, a wrong, a revoked or an expired one was sent (HTTP 401)",
  forbidden: "the key's scope does not allow the route (runs:read, runs:write, admin); the message names the scope it needs (HTTP 403)",
  quota_exceeded:
    "the tenant is at one of its quotas (Runs running or queued, spend per day); the body's quota names it; send again after Retry-After (HTTP 429)",
  not_found: "no Run with that id (or one of another tenant), no such file in its Harvest, key or tenant, or no such route (HTTP 404)",
  not_ended: "the Run has not ended; it can be deleted, and its artifacts read, once it has (HTTP 409)",
  cursor_expired:
    "the events feed no longer keeps what follows the cursor (after= or Last-Event-ID): older entries were dropped; list the Runs to catch up, then read on from the oldest kept (HTTP 410)",
  idempotency_key_reused: "the Idempotency-Key was already used for a different request (HTTP 422)",
  too_large: "the request body is over MAX_BODY_BYTES (HTTP 413)",
  queue_full: "the queue is full; send the Run again after Retry-After (HTTP 429)",
  draining: "the service is shutting down and takes no new Runs; send the Run again after Retry-After (HTTP 503)",
  internal: "the service failed the request itself; its log says why (HTTP 500)",
  // What the library, the service's start and the command throw, as AgentcageError's `code`.
  invalid_agent_container: "an Agent Container declaration that cannot mean anything, refused at construction",
  invalid_mount_table: "a Mount Table that cannot mean anything: a path not absolute or with a dot segment, a target named twice, a NUL byte",
  invalid_extra_args: "an extraArgs flag that run() cannot mirror, or one without its value",
  invalid_call:
    "a library call that cannot be carried out as given (commandFor, sweep, inspectEngine, the egress proxy's start); the message says what to pass",
  invalid_runner_options: "createAgentRunner() or its commandFor() was given options that cannot mean anything",
  invalid_agent_request: "an agent request (cli, model, maxTurns, ...) that breaks its schema or its size limit",
  credential_unreadable: "a credential's file cannot be read safely: not a regular file, readable by others, too large, or not JSON",
  invalid_harvest_arguments: "harvest() or recoverHarvest() was given paths, limits or options that cannot mean anything",
  staging_failed: "the host's disk failed while a Run's inputs were staged",
  invalid_egress_arguments: "the egress proxy was given a registration, sources or options that cannot mean anything",
  egress_control_failed: "the egress proxy's control endpoint could not be reached, or refused a request",
  serve_refused: "agentcage serve cannot start as asked (an option, the address, the token, the egress proxy); the message says what to change",
  invalid_usage: "a wrong `agentcage` command line; the command exits 2",
  kubernetes_refused:
    "a Run the Kubernetes backend cannot honour as a Pod (a field with no Pod equivalent, a value Kubernetes refuses, a namespace without the restricted Pod Security Standard); the message names the parameter and its value",
  // What the typed client (agentcage/client) throws when no answer of the API's came.
  service_unreachable:
    "the typed client got no answer of the API's: the service could not be reached, did not answer in time, or answered something else (a proxy's page); status says what came",
  service_silent: "the typed client heard nothing from the service, not even a keep-alive, for its idle timeout while following a Run; the Run may go on there",
} as const;

/** A stable, machine-readable name of one refusal; its meaning is ERROR_CODES[code]. */
export type ErrorCode = keyof typeof ERROR_CODES;
