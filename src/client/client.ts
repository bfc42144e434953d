// The typed client of an agentcage service: openapi-fetch over the types generated from the
// service's own OpenAPI document, the bearer token on every request, a refusal thrown as a
// ServiceError naming its status and code. Invariant: the token is sent only in the Authorization
// header of requests to `baseUrl`, and never appears in an error, a message or a URL.

import createFetchClient, { type Client } from "openapi-fetch";
import { AgentcageError } from "../errors/index.js";
import type { AcceptedRequest, Artifacts, ListRunsQuery, PoolState, Run, RunEvent, RunPage, RunRequest, ServiceState } from "./api-types.js";
import { type FollowOptions, followRun } from "./follow.js";
import { REQUEST_TIMEOUT_MS, SUBMIT_ATTEMPTS, SUBMIT_RETRY_STEP_MS } from "./limits.js";
import type { paths } from "./openapi-paths.js";
import { refusalOf, ServiceError, unreachable } from "./service-error.js";

export type ClientOptions = {
  /** The service's address, e.g. http://127.0.0.1:8750 (`agentcage serve`'s default). */
  readonly baseUrl: string | URL;
  /** The Operator's token or a tenant's API key; sent as `Authorization: Bearer`. */
  readonly token: string;
  /** Each request that is not an event stream fails after this; default REQUEST_TIMEOUT_MS (30 s). */
  readonly timeoutMs?: number;
  /** The fetch to use; default the global one. */
  readonly fetch?: (request: Request) => Promise<Response>;
};

export type SubmitOptions = {
  /** The agent's input files: an uncompressed tar archive, sent in the same request (multipart). */
  readonly inputs?: Uint8Array | Blob;
  /** Makes a repeated submit answer the Run the first one made; default a fresh one per call, which its own retries share. */
  readonly idempotencyKey?: string;
  /** W3C Trace Context of the caller's span (the `traceparent` and `tracestate` headers): the Run's span is its child where the service exports traces. */
  readonly trace?: { readonly traceparent?: string; readonly tracestate?: string };
};

export type AgentcageClient = {
  /** The service's address, as given. */
  readonly baseUrl: URL;
  /** openapi-fetch's client over the whole API (keys, tenants, usage, ...), the token already on it. */
  readonly api: Client<paths>;
  /**
   * One operation of `api` with this client's timeout, its refusal or no answer thrown as a
   * ServiceError, as every method here does: `ask("GET /v1/keys", (api, signal) => api.GET("/v1/keys", { signal }))`.
   */
  readonly ask: <T>(asked: string, perform: (api: Client<paths>, signal: AbortSignal) => Promise<ApiAnswer<T>>) => Promise<T>;
  /** Starts a Run; retried after a dropped connection with the same Idempotency-Key, so it makes one Run. */
  readonly submit: (request: RunRequest, options?: SubmitOptions) => Promise<Run>;
  readonly get: (id: string) => Promise<Run>;
  readonly list: (query?: ListRunsQuery) => Promise<RunPage>;
  /** Idempotent; a Run that has ended is left as it is. */
  readonly cancel: (id: string) => Promise<Run>;
  /** Removes a Run that has ended, its record and its artifacts. */
  readonly remove: (id: string) => Promise<void>;
  /** What the Run was asked, as the service accepted it. */
  readonly request: (id: string) => Promise<AcceptedRequest>;
  readonly artifacts: (id: string) => Promise<Artifacts>;
  /** One harvested file (`out/answer.txt`, `changes.patch`), streamed. */
  readonly artifact: (id: string, path: string) => Promise<ReadableStream<Uint8Array>>;
  /** The whole Harvest as an uncompressed tar, streamed. */
  readonly artifactsTar: (id: string) => Promise<ReadableStream<Uint8Array>>;
  readonly pool: () => Promise<PoolState>;
  readonly service: () => Promise<ServiceState>;
  /** The Run's events to its `end`, resumed with Last-Event-ID after a dropped connection (see FollowOptions). */
  readonly follow: (id: string, options?: FollowOptions) => AsyncGenerator<RunEvent, void, undefined>;
};

/** What createClient was given that cannot mean anything. */
export class ClientOptionsError extends AgentcageError {
  override readonly name = "ClientOptionsError";
  readonly code = "invalid_call";
}

/** What an operation of openapi-fetch's client resolves with. */
export type ApiAnswer<T> = { readonly data?: T; readonly error?: unknown; readonly response: Response };

export function createClient(options: ClientOptions): AgentcageClient {
  const base = baseUrlOf(options.baseUrl);
  if (typeof options.token !== "string" || options.token.trim() === "")
    throw new ClientOptionsError(
      "createClient's token is empty; pass the service's token or an API key (agentcage serve writes its own to <runtime-dir>/service/token)",
    );
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const given = options.fetch;
  const api = createFetchClient<paths>({
    baseUrl: base.href.replace(/\/$/, ""),
    headers: { authorization: `Bearer ${options.token}` },
    // Looked up at each call, not once here: a test's or an agent's fetch put in place later is used.
    fetch: (request) => (given === undefined ? globalThis.fetch(request) : given(request)),
  });

  /** One request with a timeout; its refusal or no answer thrown as a ServiceError. */
  const ask = async <T>(asked: string, perform: (client: Client<paths>, signal: AbortSignal) => Promise<ApiAnswer<T>>): Promise<T> => {
    let answered: ApiAnswer<T>;
    try {
      answered = await perform(api, AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw unreachable(base, asked, error);
    }
    if (!answered.response.ok) throw refusalOf(asked, answered.response, answered.error);
    return answered.data as T;
  };
  const call = <T>(asked: string, perform: (signal: AbortSignal) => Promise<ApiAnswer<T>>): Promise<T> => ask(asked, (_api, signal) => perform(signal));
  const stream = async (asked: string, perform: (signal: AbortSignal) => Promise<ApiAnswer<ReadableStream<Uint8Array> | null>>) => {
    const body = await call(asked, perform);
    // openapi-fetch hands back no body for an empty answer (content-length 0): an empty file is still a file.
    return body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  };
  const path = (id: string) => ({ params: { path: { id } } });

  const submit = async (request: RunRequest, submitted: SubmitOptions = {}): Promise<Run> => {
    const key = submitted.idempotencyKey ?? globalThis.crypto.randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await call("POST /v1/runs", (signal) =>
          api.POST("/v1/runs", {
            body: request,
            params: { header: { "idempotency-key": key, ...submitted.trace } },
            signal,
            ...(submitted.inputs === undefined ? {} : { bodySerializer: () => formOf(request, submitted.inputs as Uint8Array | Blob) }),
          }),
        );
      } catch (error) {
        if (!(error instanceof ServiceError) || error.status !== undefined || attempt >= SUBMIT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, SUBMIT_RETRY_STEP_MS * attempt));
      }
    }
  };

  return {
    baseUrl: base,
    api,
    ask,
    submit,
    get: (id) => call(`GET /v1/runs/${id}`, (signal) => api.GET("/v1/runs/{id}", { ...path(id), signal })),
    list: (query = {}) => call("GET /v1/runs", (signal) => api.GET("/v1/runs", { params: { query }, signal })),
    cancel: (id) => call(`POST /v1/runs/${id}/cancel`, (signal) => api.POST("/v1/runs/{id}/cancel", { ...path(id), signal })),
    remove: async (id) => {
      await call(`DELETE /v1/runs/${id}`, (signal) => api.DELETE("/v1/runs/{id}", { ...path(id), signal }));
    },
    request: (id) => call(`GET /v1/runs/${id}/request`, (signal) => api.GET("/v1/runs/{id}/request", { ...path(id), signal })),
    artifacts: (id) => call(`GET /v1/runs/${id}/artifacts`, (signal) => api.GET("/v1/runs/{id}/artifacts", { ...path(id), signal })),
    artifact: (id, file) =>
      stream(`GET /v1/runs/${id}/artifacts/${file}`, (signal) =>
        api.GET("/v1/runs/{id}/artifacts/{path}", { params: { path: { id, path: file } }, parseAs: "stream", signal }),
      ),
    artifactsTar: (id) =>
      stream(`GET /v1/runs/${id}/artifacts.tar`, (signal) => api.GET("/v1/runs/{id}/artifacts.tar", { ...path(id), parseAs: "stream", signal })),
    pool: () => call("GET /v1/pool", (signal) => api.GET("/v1/pool", { signal })),
    service: () => call("GET /v1/service", (signal) => api.GET("/v1/service", { signal })),
    follow: (id, followed) => followRun(api, base, id, followed),
  };
}

/** `baseUrl` as a URL, refused when it is not an http(s) one. */
function baseUrlOf(raw: string | URL): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ClientOptionsError(`createClient's baseUrl ${JSON.stringify(String(raw))} is not a URL; write the service's address, e.g. http://127.0.0.1:8750`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ClientOptionsError(`createClient's baseUrl ${JSON.stringify(String(raw))} is not http or https; write e.g. http://127.0.0.1:8750`);
  if (url.username !== "" || url.password !== "")
    throw new ClientOptionsError("createClient's baseUrl carries a user or password; pass the token as `token`, never in the URL");
  return url;
}

/** The multipart form POST /v1/runs takes: the part `request` (the JSON), then the tar archive `inputs`. */
function formOf(request: RunRequest, inputs: Uint8Array | Blob): FormData {
  const form = new FormData();
  // A field, not a file: the service takes one file part, the archive.
  form.append("request", JSON.stringify(request));
  form.append("inputs", inputs instanceof Blob ? inputs : new Blob([inputs as Uint8Array<ArrayBuffer>], { type: "application/x-tar" }), "inputs.tar");
  return form;
}
