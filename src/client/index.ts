/**
 * The typed client of an agentcage service (`agentcage serve`), installed as `agentcage/client`:
 * the HTTP API generated from the service's own OpenAPI document (openapi-typescript types,
 * openapi-fetch), and a Run's events followed as an async iterator that resumes with
 * Last-Event-ID after a dropped connection. It loads neither the service nor the engine.
 *
 * ```ts
 * import { createClient } from "agentcage/client";
 *
 * const client = createClient({ baseUrl: "http://127.0.0.1:8750", token: process.env.AGENTCAGE_TOKEN ?? "" });
 * const run = await client.submit({ cli: "claude", prompt: "What is the capital of France?" });
 * for await (const event of client.follow(run.id)) {
 *   if (event.type === "agent" && event.data.type === "assistant_text") console.log(event.data.text);
 *   if (event.type === "end") console.log(event.data.ok, event.data.result?.text);
 * }
 * ```
 */
export type { AgentcageClient, ApiAnswer, ClientOptions, SubmitOptions } from "./client.js";
export { ClientOptionsError, createClient } from "./client.js";
export type { FollowOptions } from "./follow.js";
export type {
  AcceptedRequest,
  Artifacts,
  ErrorAnswer,
  ListRunsQuery,
  Outcome,
  PoolState,
  Run,
  RunEvent,
  RunPage,
  RunRequest,
  RunState,
  ServiceState,
} from "./api-types.js";
export type { components, operations, paths } from "./openapi-paths.js";
export { DEFAULT_IDLE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "./limits.js";
export type { AnsweredCode } from "./service-error.js";
export { causeOf, ServiceError } from "./service-error.js";
