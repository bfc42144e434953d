// Webhooks through the real app over the in-memory store and scripted Runs (route and delivery
// logic: no engine), received by real HTTP servers on loopback and verified with the Standard
// Webhooks library: run.started then run.finished, signed with the tenant's secret, never the
// prompt; a receiver that fails is tried again and every attempt is in GET /v1/runs/:id/deliveries
// (another tenant's Run is not there); a dead receiver does not hurt the Run; a deleted Run is tried
// no more; a loopback callbackUrl is refused unless allowed; and a webhook owed when the service
// stops is delivered after it starts again over the same file store.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAppInMemory, type Answer, type AppInMemoryOptions, type StartedApp } from "../../../test/support/app.js";

const PROMPT = "What is the capital of France? (webhooks test prompt)";
/** Tried again fast: at 0, 0.2 s, 0.6 s, 1 s, ...; nothing starts 2 s after the event. */
const FAST_RETRIES = { delaysMs: [200, 400], boundMs: 2_000, jitter: 0 };

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** The service as serve makes it, its Runs scripted; with `runtimeDir`, over that file store (a restart), else in memory. */
const start = (options: AppInMemoryOptions = {}): Promise<StartedApp> => startAppInMemory("webhooks", options);

/** A request as the Operator (or `token`), a body sent as JSON. */
const callOf =
  (service: StartedApp, token = service.token) =>
  (path: string, init: { method?: string; body?: unknown } = {}): Promise<Answer> =>
    service.call(token, path, init);

type Received = { readonly headers: IncomingHttpHeaders; readonly body: string; readonly at: number };

/** A receiver on loopback that records every POST and answers what `status` says for it (the how-manieth for its webhook-id, from 1). */
async function receiver(status: (nth: number) => number = () => 204, port = 0): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      received.push({ headers: request.headers, body, at: Date.now() });
      const nth = received.filter((r) => r.headers["webhook-id"] === request.headers["webhook-id"]).length;
      response.writeHead(status(nth), { "content-type": "text/plain" }).end(`answer ${nth}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  receivers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/agentcage`, received, server };
}

const receivers: Server[] = [];
afterEach(async () => {
  for (const server of receivers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Deliveries = {
  webhooks: Array<{
    webhookId: string;
    type: string;
    state: string;
    attempts: Array<{ attempt: number; delivered: boolean; status?: number; error?: string; nextAttemptAt?: string; response?: string }>;
  }>;
};

async function submit(call: ReturnType<typeof callOf>, body: Record<string, unknown>): Promise<string> {
  const answer = await call("/v1/runs", { method: "POST", body: { cli: "claude", prompt: PROMPT, ...body } });
  expect(answer.status, answer.text).toBe(202);
  return answer.json()["id"] as string;
}

/** Polls until `done` holds of the Run's deliveries; a scripted Run ends at once, the retries below take under 3 s. */
async function deliveriesWhen(call: ReturnType<typeof callOf>, id: string, done: (deliveries: Deliveries) => boolean, timeoutMs = 10_000): Promise<Deliveries> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(`/v1/runs/${id}/deliveries`);
    expect(answer.status).toBe(200);
    const deliveries = answer.json() as Deliveries;
    if (done(deliveries)) return deliveries;
    if (Date.now() > until) throw new Error(`deliveries of Run ${id} not as awaited within ${timeoutMs} ms: ${JSON.stringify(deliveries)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const settled = (types: string[]) => (deliveries: Deliveries) =>
  types.every((type) => deliveries.webhooks.some((webhook) => webhook.type === type && webhook.state !== "pending"));

describe("webhooks, allowed to loopback receivers", () => {
  let service: StartedApp;
  let call: ReturnType<typeof callOf>;
  let secret: string;
  beforeAll(async () => {
    service = await start({ allowPrivateCallbacks: true, webhookRetries: FAST_RETRIES });
    call = callOf(service);
    secret = (await call("/v1/tenant")).json()["webhookSecret"] as string;
    expect(secret).toMatch(/^whsec_/);
  });
  afterAll(() => service.stop());

  it("posts run.started then run.finished, signed with the tenant's secret, with the end's reason and times and never the prompt", async () => {
    const hooks = await receiver();
    const id = await submit(call, { callbackUrl: hooks.url, labels: { suite: "webhooks" } });
    const deliveries = await deliveriesWhen(call, id, settled(["run.started", "run.finished"]));
    expect(deliveries.webhooks.map(({ type, state, attempts }) => ({ type, state, attempts: attempts.length }))).toEqual([
      { type: "run.started", state: "delivered", attempts: 1 },
      { type: "run.finished", state: "delivered", attempts: 1 },
    ]);
    expect(hooks.received).toHaveLength(2);
    const verified = hooks.received.map(({ headers, body }) => {
      expect(headers["content-type"]).toBe("application/json");
      expect(headers["user-agent"]).toBe("agentcage");
      expect(body).not.toContain("capital of France");
      expect(body).not.toContain(secret);
      return new Webhook(secret).verify(body, headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, unknown> };
    });
    expect(verified.map((message) => message.type)).toEqual(["run.started", "run.finished"]);
    const [startedHook, finishedHook] = verified;
    expect(startedHook?.data).toMatchObject({ runId: id, tenant: "operator", state: "starting", labels: { suite: "webhooks" } });
    expect(finishedHook?.data).toMatchObject({ runId: id, tenant: "operator", state: "completed", ok: true, reason: "completed" });
    expect(finishedHook?.data["durationMs"]).toEqual(expect.any(Number));
    expect(finishedHook?.data["queuedMs"]).toEqual(expect.any(Number));
    expect(hooks.received.map((r) => r.headers["webhook-id"])).toEqual(deliveries.webhooks.map((webhook) => webhook.webhookId));
    // Signed with another secret, it does not verify: the check above can fail.
    const [first] = hooks.received;
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(first?.body ?? "", first?.headers as Record<string, string>)).toThrow();
  });

  it("tries a receiver that answers 500 twice again, with the same webhook-id, and lists all three attempts", async () => {
    const hooks = await receiver((nth) => (nth <= 2 ? 500 : 200));
    const id = await submit(call, { callbackUrl: hooks.url });
    const deliveries = await deliveriesWhen(call, id, settled(["run.started", "run.finished"]));
    for (const webhook of deliveries.webhooks) {
      expect(webhook.state).toBe("delivered");
      expect(webhook.attempts.map(({ attempt, delivered, status }) => ({ attempt, delivered, status }))).toEqual([
        { attempt: 1, delivered: false, status: 500 },
        { attempt: 2, delivered: false, status: 500 },
        { attempt: 3, delivered: true, status: 200 },
      ]);
      expect(webhook.attempts[0]?.nextAttemptAt).toEqual(expect.any(String));
      expect(webhook.attempts[0]?.response).toBe("answer 1");
      const posts = hooks.received.filter((r) => r.headers["webhook-id"] === webhook.webhookId);
      expect(posts).toHaveLength(3);
      for (const post of posts) expect(() => new Webhook(secret).verify(post.body, post.headers as Record<string, string>)).not.toThrow();
    }
  });

  it("records a receiver nobody listens at as failed attempts until the bound, and the Run completes all the same", async () => {
    const gone = await receiver();
    receivers.splice(receivers.indexOf(gone.server), 1);
    await new Promise((resolve) => gone.server.close(resolve));
    const id = await submit(call, { callbackUrl: gone.url });
    const deliveries = await deliveriesWhen(call, id, settled(["run.started", "run.finished"]));
    const run = (await call(`/v1/runs/${id}`)).json();
    expect(run).toMatchObject({ state: "completed", outcome: { ok: true } });
    for (const webhook of deliveries.webhooks) {
      expect(webhook.state).toBe("failed");
      expect(webhook.attempts.length).toBeGreaterThanOrEqual(3);
      for (const attempt of webhook.attempts) expect(attempt).toMatchObject({ delivered: false, error: expect.stringContaining("ECONNREFUSED") });
      expect(webhook.attempts.at(-1)?.nextAttemptAt).toBeUndefined();
    }
  });

  it("stops trying a deleted Run's webhooks", async () => {
    const hooks = await receiver(() => 500);
    const id = await submit(call, { callbackUrl: hooks.url });
    await deliveriesWhen(call, id, (deliveries) => deliveries.webhooks.some((webhook) => webhook.type === "run.finished" && webhook.attempts.length >= 1));
    expect((await call(`/v1/runs/${id}`, { method: "DELETE" })).status).toBe(204);
    const after = hooks.received.length;
    // The schedule would try again within 0.4 s, and until 2 s after the event: several more attempts
    // in 1.5 s. One sent before the DELETE may still land after it on a busy machine; none more.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(hooks.received.length).toBeLessThanOrEqual(after + 1);
  });

  it("posts a Run with no callbackUrl to its tenant's default, signed with that tenant's secret, and shows another tenant's Run's deliveries as an unknown Run", async () => {
    const hooks = await receiver();
    const made = (await call("/v1/keys", { method: "POST", body: { tenant: "team-hooks" } })).json() as { key: string };
    const changed = await call("/v1/tenants/team-hooks", { method: "PUT", body: { callbackUrl: hooks.url } });
    expect(changed.status).toBe(200);
    const asTenant = callOf(service, made.key);
    const tenantSecret = (await asTenant("/v1/tenant")).json()["webhookSecret"] as string;
    expect(tenantSecret).not.toBe(secret);
    const id = await submit(asTenant, {});
    await deliveriesWhen(asTenant, id, settled(["run.started", "run.finished"]));
    expect(hooks.received).toHaveLength(2);
    for (const { body, headers } of hooks.received) {
      expect(new Webhook(tenantSecret).verify(body, headers as Record<string, string>)).toMatchObject({ data: { runId: id, tenant: "team-hooks" } });
    }
    const other = await submit(call, {});
    const refused = await asTenant(`/v1/runs/${other}/deliveries`);
    expect(refused.status).toBe(404);
    expect(refused.json()).toMatchObject({ error: "not_found" });
  });
});

describe("webhooks, by default", () => {
  it("refuses a loopback callbackUrl, and one whose host does not resolve, 400 naming it, and makes no Run", async () => {
    const service = await start();
    try {
      const call = callOf(service);
      const hooks = await receiver();
      for (const [url, said] of [
        [hooks.url, "resolves to 127.0.0.1, a loopback address"],
        ["http://[::1]:9/hooks", "resolves to ::1, a loopback address"],
        ["http://169.254.169.254/latest/meta-data", "a link-local address"],
        ["https://nowhere.invalid/hooks", "does not resolve"],
      ] as const) {
        const answer = await call("/v1/runs", { method: "POST", body: { cli: "claude", prompt: PROMPT, callbackUrl: url } });
        const body = answer.json() as { error: string; message: string };
        expect(answer.status, body.message).toBe(400);
        expect(body.error).toBe("invalid_request");
        expect(body.message).toContain(`callbackUrl ${JSON.stringify(url)}`);
        expect(body.message).toContain(said);
      }
      const listed = (await call("/v1/runs")).json() as { runs: unknown[] };
      expect(listed.runs).toEqual([]);
      expect(hooks.received).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});

describe("webhooks across a restart", () => {
  it("delivers after the next start a webhook the receiver failed before the service stopped, and the stopped service tries no more", async () => {
    let failing = true;
    const hooks = await receiver(() => (failing ? 503 : 200));
    const retries = { delaysMs: [10_000], boundMs: 600_000, jitter: 0 };
    const runtimeDir = join(mkdtempSync(join(tmpdir(), "agentcage-webhooks-")), "rt");
    roots.push(join(runtimeDir, ".."));
    const first = await start({ allowPrivateCallbacks: true, webhookRetries: retries, runtimeDir });
    const id = await submit(callOf(first), { callbackUrl: hooks.url });
    await deliveriesWhen(callOf(first), id, (deliveries) => deliveries.webhooks.filter((webhook) => webhook.attempts.length >= 1).length === 2);
    const stopping = Date.now();
    await first.stop();
    // Promptly: the pending retries are timers cleared, not waited for.
    expect(Date.now() - stopping).toBeLessThan(15_000);
    failing = false;
    const postsBefore = hooks.received.length;
    const second = await start({ allowPrivateCallbacks: true, webhookRetries: retries, runtimeDir });
    try {
      const deliveries = await deliveriesWhen(callOf(second), id, settled(["run.started", "run.finished"]), 30_000);
      for (const webhook of deliveries.webhooks) {
        expect(webhook.state).toBe("delivered");
        // Failed while the receiver failed (once, or twice for a slow Run), then delivered by the second service.
        expect(webhook.attempts.map(({ delivered }) => delivered)).toEqual([...webhook.attempts.slice(1).map(() => false), true]);
        expect(webhook.attempts.map(({ attempt }) => attempt)).toEqual(webhook.attempts.map((_attempt, index) => index + 1));
      }
      // One post each after the restart: the first service's timers did not fire as well.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(hooks.received.length - postsBefore).toBe(2);
    } finally {
      await second.stop();
    }
  });
});
