// Every refusal the HTTP API answers, through the app alone (a scripted RunService, no engine): its
// status, and its `error`, a code of the catalogue under the name clients already branch on.
// Invariant: no answer of the service carries an `error` outside ERROR_CODES.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance, InjectOptions } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../errors/index.js";
import { buildApp } from "../serve/index.js";
import { openFeed } from "../runs/index.js";
import { InputsError } from "../../staging/index.js";
import { MAX_BODY_BYTES } from "../limits.js";
import { createRunMetrics } from "../metrics/index.js";
import type { RunService } from "../runs/index.js";
import type { RunRecord } from "../runs/index.js";
import { openTenancy } from "../tenancy/index.js";

const TOKEN = "a-token-for-the-error-answers";
const LIVE: RunRecord = { id: "0123456789abcdef", tenant: "operator", state: "running", createdAt: "2026-01-01T00:00:00.000Z", labels: {} };
const UNKNOWN = "fedcba9876543210";

let submit: RunService["submit"] = async () => "queue_full";
const service = {
  submit: (...args: Parameters<RunService["submit"]>) => submit(...args),
  get: (id: string) => (id === LIVE.id ? LIVE : undefined),
  list: () => [LIVE],
  position: () => undefined,
  events: async () => [],
  outcome: async () => undefined,
  listen: () => () => undefined,
  cancel: async () => undefined,
  remove: async (id: string) => (id === LIVE.id ? "live" : undefined),
  counts: () => ({ queued: 0, running: 1 }),
  harvestDirectory: () => undefined,
} as unknown as RunService;

let app: FastifyInstance;
const scratch = mkdtempSync(join(tmpdir(), "agentcage-error-answers-"));
beforeAll(async () => {
  app = await buildApp({
    service,
    token: TOKEN,
    tenancy: await openTenancy(scratch),
    feed: await openFeed(scratch),
    quotasOf: () => ({ maxRunning: 1, maxQueued: 1 }),
    readiness: async () => ({ ready: true, engine: true, image: true, credentials: {}, slots: { total: 1, running: 1, queued: 0 } }),
    facts: {
      version: "0.0.0",
      startedAt: new Date().toISOString(),
      agentImage: "agentcage-agent:latest",
      standIn: false,
      egress: async () => ({ networkPolicy: "none", proxy: "none" }),
    },
    logger: pino({ level: "silent" }),
    metrics: createRunMetrics(() => new Map([["operator", { queued: 0, running: 1 }]])),
  });
});
afterAll(() => app.close());
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const authorized = { authorization: `Bearer ${TOKEN}` };
const submitted = { method: "POST" as const, url: "/v1/runs", headers: { ...authorized, "content-type": "application/json" } };
const request = { cli: "claude", prompt: "hi" };

async function answer(options: InjectOptions): Promise<{ status: number; error: unknown }> {
  const response = await app.inject(options);
  const body = response.json() as { error?: unknown; message?: unknown };
  expect(typeof body.message).toBe("string");
  return { status: response.statusCode, error: body.error };
}

describe("the HTTP API's refusals", () => {
  it("answers a missing token unauthorized (401), on a known route and an unknown one alike", async () => {
    expect(await answer({ method: "GET", url: "/v1/runs" })).toEqual({ status: 401, error: "unauthorized" });
    expect(await answer({ method: "GET", url: "/no/such/route" })).toEqual({ status: 401, error: "unauthorized" });
  });

  it("answers an unknown Run, and an unknown route, not_found (404)", async () => {
    expect(await answer({ method: "GET", url: `/v1/runs/${UNKNOWN}`, headers: authorized })).toEqual({ status: 404, error: "not_found" });
    expect(await answer({ method: "GET", url: `/v1/runs/${UNKNOWN}/events`, headers: authorized })).toEqual({ status: 404, error: "not_found" });
    expect(await answer({ method: "GET", url: `/v1/runs/${UNKNOWN}/artifacts`, headers: authorized })).toEqual({ status: 404, error: "not_found" });
    expect(await answer({ method: "GET", url: "/no/such/route", headers: authorized })).toEqual({ status: 404, error: "not_found" });
  });

  it("answers a request that breaks its schema, or is not JSON, invalid_request (400)", async () => {
    expect(await answer({ method: "GET", url: "/v1/runs?labels=a", headers: authorized })).toEqual({ status: 400, error: "invalid_request" });
    expect(await answer({ ...submitted, payload: "{" })).toEqual({ status: 400, error: "invalid_request" });
    expect(await answer({ ...submitted, payload: { ...request, temperature: 2 } })).toEqual({ status: 400, error: "invalid_request" });
  });

  it("refuses a prompt of only whitespace before it is a Run, saying so", async () => {
    const refused = await app.inject({ ...submitted, payload: { ...request, prompt: " \n\t " } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: "invalid_request", message: expect.stringContaining("prompt is only whitespace") });
  });

  it("refuses an effort the request's CLI does not take before it is a Run, listing what it takes", async () => {
    const refused = await app.inject({ ...submitted, payload: { ...request, cli: "claude", effort: "ultra" } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      error: "invalid_request",
      message: expect.stringContaining('effort "ultra" is not one claude takes; write one of low, medium, high, xhigh, max'),
    });
  });

  it("answers a body over MAX_BODY_BYTES too_large (413)", async () => {
    const prompt = "x".repeat(MAX_BODY_BYTES);
    expect(await answer({ ...submitted, payload: JSON.stringify({ ...request, prompt }) })).toEqual({ status: 413, error: "too_large" });
  });

  it("answers a full queue queue_full (429), a draining service draining (503), a reused key idempotency_key_reused (422)", async () => {
    submit = async () => "queue_full";
    expect(await answer({ ...submitted, payload: request })).toEqual({ status: 429, error: "queue_full" });
    submit = async () => "draining";
    expect(await answer({ ...submitted, payload: request })).toEqual({ status: 503, error: "draining" });
    submit = async () => ({ reused: LIVE });
    const keyed = { ...submitted, headers: { ...submitted.headers, "idempotency-key": "k" } };
    expect(await answer({ ...keyed, payload: request })).toEqual({ status: 422, error: "idempotency_key_reused" });
  });

  it("answers refused inputs with the InputsError's status and code, invalid_inputs", async () => {
    submit = async () => {
      throw new InputsError(413, "the inputs archive is too large");
    };
    expect(await answer({ ...submitted, payload: request })).toEqual({ status: 413, error: "invalid_inputs" });
  });

  it("answers a Run that has not ended not_ended (409), for its deletion and its artifacts", async () => {
    expect(await answer({ method: "DELETE", url: `/v1/runs/${LIVE.id}`, headers: authorized })).toEqual({ status: 409, error: "not_ended" });
    expect(await answer({ method: "GET", url: `/v1/runs/${LIVE.id}/artifacts`, headers: authorized })).toEqual({ status: 409, error: "not_ended" });
  });

  it("refuses a tenant's default callback URL on a loopback address (400), naming callbackUrl, and keeps the tenant as it was", async () => {
    const put = (callbackUrl: string) =>
      app.inject({ method: "PUT", url: "/v1/tenants/team-a", headers: { ...authorized, "content-type": "application/json" }, payload: { callbackUrl } });
    const refused = await put("http://127.0.0.1:9/hooks");
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      error: "invalid_request",
      message: expect.stringContaining('callbackUrl "http://127.0.0.1:9/hooks" resolves to 127.0.0.1'),
    });
    const tenant = (await app.inject({ method: "GET", url: "/v1/tenants/team-a", headers: authorized })).json() as { callbackUrl?: string };
    expect(tenant.callbackUrl).toBeUndefined();
  });

  it("refuses a tenant's default callback URL on loopback written as IPv4-translated IPv6 (400), judging it by its IPv4", async () => {
    const url = "http://[::ffff:0:127.0.0.1]:9/hooks";
    const refused = await app.inject({
      method: "PUT",
      url: "/v1/tenants/team-a",
      headers: { ...authorized, "content-type": "application/json" },
      payload: { callbackUrl: url },
    });
    expect([refused.statusCode, refused.json()]).toEqual([
      400,
      expect.objectContaining({
        error: "invalid_request",
        message: expect.stringContaining(`callbackUrl ${JSON.stringify(url)} resolves to ::ffff:0:7f00:1, a loopback address`),
      }),
    ]);
  });

  it("answers its own failure internal (500), without its words", async () => {
    submit = async () => {
      throw new Error("a secret detail of the failure");
    };
    const response = await app.inject({ ...submitted, payload: request });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ error: "internal", message: "the service failed this request; see its log" });
  });

  it("describes `error` in /openapi.json as the catalogue's codes", async () => {
    const document = (await app.inject({ method: "GET", url: "/openapi.json", headers: authorized })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
    };
    const notFound = document.paths["/v1/runs/{id}"]?.["get"]?.responses["404"]?.content?.["application/json"]?.schema as {
      properties?: { error?: { enum?: unknown } };
    };
    expect(notFound.properties?.error?.enum).toEqual(Object.keys(ERROR_CODES));
  });
});
