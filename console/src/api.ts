// The console's one way to the service: openapi-fetch typed by the same OpenAPI document the
// service serves (the snapshot its OpenAPI test holds true), the key sent as a bearer header on
// every call. A refusal becomes an ApiError carrying the service's own sentence.

import createClient from "openapi-fetch";
import type { operations, paths } from "../../src/client/openapi-paths";

type Json<K extends keyof operations, S extends number = 200> =
  operations[K]["responses"] extends Record<S, { content: { "application/json": infer T } }> ? T : never;

export type Run = Json<"getRun">;
export type RunPage = Json<"listRuns">;
export type Artifacts = Json<"listArtifacts">;
export type RunRequest = NonNullable<operations["createRun"]["requestBody"]>["content"]["application/json"];
export type Outcome = NonNullable<Run["outcome"]>;
export type ServiceState = Json<"getService">;

/** A call the service refused or could not answer: its status, its error code and its sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Api = ReturnType<typeof apiWith>;

export function apiWith(key: string) {
  const client = createClient<paths>({ baseUrl: location.origin });
  client.use({
    onRequest({ request }) {
      request.headers.set("authorization", `Bearer ${key}`);
      return request;
    },
  });
  const authorized = (init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...init.headers, authorization: `Bearer ${key}` } });
  return {
    key,
    listRuns: async (query: NonNullable<operations["listRuns"]["parameters"]["query"]>) => answered(await client.GET("/v1/runs", { params: { query } })),
    getRun: async (id: string) => answered(await client.GET("/v1/runs/{id}", { params: { path: { id } } })),
    cancelRun: async (id: string) => answered(await client.POST("/v1/runs/{id}/cancel", { params: { path: { id } } })),
    /** What the Run was asked, as the service keeps it. */
    request: async (id: string): Promise<Record<string, unknown>> => {
      const response = await fetch(`/v1/runs/${id}/request`, authorized());
      if (!response.ok) throw await refusal(response);
      return (await response.json()) as Record<string, unknown>;
    },
    artifacts: async (id: string) => answered(await client.GET("/v1/runs/{id}/artifacts", { params: { path: { id } } })),
    /** The events feed's newest entry id now: following the feed after it hears only what happens from here on. */
    newestEventId: async () => answered(await client.GET("/v1/events", { params: { query: { limit: 1 } } })).newestId,
    /** One file of a Run's Harvest, or (path undefined) all of them as a tar. */
    download: async (id: string, path?: string): Promise<Blob> => {
      const url = path === undefined ? `/v1/runs/${id}/artifacts.tar` : `/v1/runs/${id}/artifacts/${path.split("/").map(encodeURIComponent).join("/")}`;
      const response = await fetch(url, authorized());
      if (!response.ok) throw await refusal(response);
      return response.blob();
    },
    /** Starts a Run: JSON alone, or multipart with the inputs as a tar archive. */
    submit: async (request: RunRequest, inputs?: Uint8Array): Promise<Run> => {
      let body: BodyInit;
      const headers: Record<string, string> = {};
      if (inputs === undefined) {
        body = JSON.stringify(request);
        headers["content-type"] = "application/json";
      } else {
        const form = new FormData();
        // A plain field: the service takes one file part only, and that is the archive.
        form.append("request", JSON.stringify(request));
        form.append("inputs", new Blob([inputs as Uint8Array<ArrayBuffer>], { type: "application/x-tar" }), "inputs.tar");
        body = form;
      }
      const response = await fetch("/v1/runs", authorized({ method: "POST", body, headers }));
      if (!response.ok) throw await refusal(response);
      return (await response.json()) as Run;
    },
    /** The service's own state (slots, queue, readiness, the egress proxy, usage today). */
    service: async () => answered(await client.GET("/v1/service", {})),
  };
}

function answered<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = (result.error ?? {}) as { error?: string; message?: string };
  throw new ApiError(result.response.status, body.error ?? "unknown", body.message ?? `the service answered ${result.response.status}`);
}

async function refusal(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
  return new ApiError(response.status, body.error ?? "unknown", body.message ?? `the service answered ${response.status}`);
}
