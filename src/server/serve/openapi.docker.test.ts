// /openapi.json as a generated client uses it, against the real service and engine: the served
// document makes the committed types of agentcage/client (as the one built without an engine does:
// scripts/client-types.test.ts), and openapi-fetch over them reaches every route of real Runs, the
// one-file artifact route with a path holding a slash included. (Its lint and schemas, route logic:
// openapi.test.ts.) Downloads nothing.

import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { useTestService } from "../../../test/support/service.js";
import type { paths } from "../../client/index.js";
import { CLIENT_TYPES_FILE, clientTypesOf } from "../../../scripts/client-types.js";
import { WRITTEN_FILE_TEXT } from "../../../test/stand-in/index.js";
import { tarOf } from "../../../test/support/tar.js";

const service = useTestService("openapi", { sessions: true });

type Document = {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: { content: Record<string, { schema: unknown }> } }>>;
  components?: unknown;
  servers?: unknown;
};

const documentOf = async (): Promise<Document> =>
  (await fetch(`${service.running().url}/openapi.json`, { headers: { authorization: `Bearer ${service.token()}` } })).json() as Promise<Document>;

describe("/openapi.json", () => {
  it("generates a client that reaches every route, the one-file artifact route with a path holding a slash included", async () => {
    // The served document makes the same types as the one the client is generated from.
    await expect(await clientTypesOf(await documentOf())).toMatchFileSnapshot(`../../../${CLIENT_TYPES_FILE}`);

    const client = createClient<paths>({ baseUrl: service.running().url, headers: { authorization: `Bearer ${service.token()}` } });
    const created = await client.POST("/v1/runs", { body: { cli: "claude", prompt: "What is the capital of France?", labels: { suite: "openapi" } } });
    expect(created.response.status).toBe(202);
    const id = created.data?.id as string;

    // The multipart form as the document describes it: the part `request`, then the archive `inputs`.
    const request = { cli: "claude", prompt: "[stand-in:tool_write_bash] write the answer", writable: true } as const;
    const form = new FormData();
    form.append("request", JSON.stringify(request));
    form.append("inputs", new Blob([await tarOf({ "README.md": "# a project\n" })]), "inputs.tar");
    const uploaded = await client.POST("/v1/runs", { body: { request }, bodySerializer: () => form });
    expect(uploaded.response.status).toBe(202);
    const writable = uploaded.data?.id as string;

    for (const run of [id, writable]) {
      const events = await client.GET("/v1/runs/{id}/events", { params: { path: { id: run }, query: { after: 0 } }, parseAs: "text" });
      expect(events.data).toContain("event: end");
      const got = await client.GET("/v1/runs/{id}", { params: { path: { id: run } } });
      expect(got.data).toMatchObject({ id: run, state: "completed", outcome: { ok: true, reason: "completed" } });
      expect(got.data?.outcome?.reason).toBe("completed");
    }
    const listed = await client.GET("/v1/runs", { params: { query: { label: ["suite=openapi"], limit: 10 } } });
    expect(listed.data?.runs.map((run) => run.id)).toEqual([id]);

    const artifacts = await client.GET("/v1/runs/{id}/artifacts", { params: { path: { id: writable } } });
    expect(artifacts.data).toMatchObject({ harvested: true, patch: true });
    const file = await client.GET("/v1/runs/{id}/artifacts/{path}", { params: { path: { id: writable, path: "out/answer.txt" } }, parseAs: "text" });
    expect(file.response.status).toBe(200);
    expect(file.data).toBe(WRITTEN_FILE_TEXT);
    const all = await client.GET("/v1/runs/{id}/artifacts.tar", { params: { path: { id: writable } }, parseAs: "arrayBuffer" });
    expect(all.response.headers.get("content-type")).toBe("application/x-tar");

    const cancelled = await client.POST("/v1/runs/{id}/cancel", { params: { path: { id } } });
    expect(cancelled.data?.state).toBe("completed");
    const removed = await client.DELETE("/v1/runs/{id}", { params: { path: { id } } });
    expect(removed.response.status).toBe(204);
    const gone = await client.GET("/v1/runs/{id}", { params: { path: { id } } });
    expect(gone.error).toMatchObject({ error: "not_found" });
    const pool = await client.GET("/v1/pool");
    expect(pool.data).toEqual({ enabled: false });
  }, 180_000);
});
