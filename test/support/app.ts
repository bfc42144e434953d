// The service's real app (every route, its parsers, auth and error answers) over the in-memory store
// and a RunService with no engine: the route tests' service. Two ways in: `useAppInMemory`, the real
// RunService over a scripted runner, answered through `app.inject()` (no socket); and `useAppOnSocket`,
// a RunService the test makes, on a loopback port, for what needs a client's HTTP (racing sockets).
// Both are started in beforeAll and closed in afterAll.

import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import type { AgentEvent } from "../../src/agents/index.js";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../../src/runner/index.js";
import { buildApp } from "../../src/server/serve/app.js";
import { createRunMetrics } from "../../src/server/metrics/metrics.js";
import { createRunService, type Lifecycle, type ResolvedQuotas, type RunService } from "../../src/server/runs/runs.js";
import { createMemoryStore, type ServiceStore } from "../../src/server/serve/service-store.js";

const facts = {
  version: "0.0.0",
  startedAt: new Date().toISOString(),
  agentImage: "agentcage-agent:latest",
  standIn: false,
  egress: async () => ({ networkPolicy: "none" as const, proxy: "none" as const }),
};

/** What one scripted Run does: tells its events, then ends with its Outcome (default: completed, 100 tokens in, 20 out, $0.001), or goes on until cancelled. */
export type ScriptedRun = {
  readonly events?: readonly AgentEvent[];
  readonly outcome?: Partial<AgentOutcome>;
  readonly untilCancelled?: boolean;
};

/** An agent runner with no engine: each Run plays what `script` says of its prompt; `prompts` are the Runs it started, in order. */
export function scriptedRunner(script: (prompt: string) => ScriptedRun = () => ({})): AgentRunner & { readonly prompts: readonly string[] } {
  const prompts: string[] = [];
  const run = async (_request: unknown, prompt: string, options: AgentRunOptions): Promise<AgentOutcome> => {
    prompts.push(prompt);
    const { events = [], outcome = {}, untilCancelled = false } = script(prompt);
    for (const event of events) options.onEvent?.(event);
    if (untilCancelled && options.signal?.aborted !== true)
      await new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve(), { once: true }));
    const cancelled = options.signal?.aborted === true;
    return {
      runId: options.runId ?? "scripted",
      ok: !cancelled,
      reason: cancelled ? "cancelled" : "completed",
      durationMs: 5,
      stdoutBytes: 0,
      stderrBytes: 0,
      stderr: "",
      credential: "api_key",
      cli: "claude",
      ...(cancelled
        ? { error: "the Run was cancelled by the caller" }
        : {
            result: {
              ok: true,
              reason: "completed",
              text: "Paris",
              usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
              costUsd: 0.001,
            },
          }),
      ...outcome,
    } as AgentOutcome;
  };
  return Object.assign({ run } as unknown as AgentRunner, { prompts });
}

export type Answer = {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly text: string;
  readonly json: () => Record<string, unknown>;
};

export type CallInit = {
  readonly method?: string;
  readonly body?: unknown;
  readonly payload?: string;
  readonly headers?: Record<string, string>;
};

export type AppInMemory = {
  /** The start-up token: the Operator's, admin scope. */
  readonly token: string;
  /** Each once beforeAll has run. */
  readonly app: () => FastifyInstance;
  readonly store: () => ServiceStore;
  readonly service: () => RunService;
  /** A request as `key` (a bearer token), answered by app.inject(); a body is sent as JSON, a payload as it is. */
  readonly call: (key: string, path: string, init?: CallInit) => Promise<Answer>;
  /** A new key, made with the Operator's token: its whole text. */
  readonly makeKey: (tenant: string, scope: string) => Promise<string>;
  /** Submits as `key` and answers the new Run's id, expecting 202. */
  readonly submit: (key: string, body: Record<string, unknown>, headers?: Record<string, string>) => Promise<string>;
  /** The Run as `key` sees it once it has ended. */
  readonly ended: (key: string, id: string) => Promise<Record<string, unknown>>;
};

export type AppInMemoryOptions = {
  /** Default: every Run completes at once (scriptedRunner()). */
  readonly runner?: AgentRunner;
  /** Default 2. */
  readonly slots?: number;
  /** Default 100. */
  readonly queueBound?: number;
};

/** Registers beforeAll/afterAll that build the app over the in-memory store and the real RunService over `runner`. */
export function useAppInMemory(name: string, options: AppInMemoryOptions = {}): AppInMemory {
  const scratch = mkdtempSync(join(tmpdir(), `agentcage-${name}-`));
  const token = `a-token-for-${name}`;
  const slots = options.slots ?? 2;
  const queueBound = options.queueBound ?? 100;
  let app: FastifyInstance | undefined;
  let store: ServiceStore | undefined;
  let service: RunService | undefined;
  beforeAll(async () => {
    const made = await createMemoryStore(join(scratch, "runs"));
    store = made;
    // As serve does: the feed hears every step of every Run's life, and so does whoever the app adds (A2A).
    const lifecycle: Array<(change: Lifecycle) => void> = [made.feed.append];
    // Every tenant may use the whole service unless the Operator set its quotas.
    const quotasOf = (tenant: string): ResolvedQuotas => ({ maxRunning: slots, maxQueued: queueBound, ...(made.tenancy.tenants.get(tenant)?.quotas ?? {}) });
    service = createRunService({
      runner: options.runner ?? scriptedRunner(),
      store: made.runs,
      files: made.files,
      slots,
      queueBound,
      quotasOf,
      onLifecycle: (change) => {
        for (const listener of lifecycle) listener(change);
      },
    });
    await service.recover();
    app = await buildApp({
      service,
      token,
      tenancy: made.tenancy,
      feed: made.feed,
      quotasOf,
      readiness: async () => ({ ready: true, engine: true, image: true, credentials: {}, slots: { total: slots, running: 0, queued: 0 } }),
      facts,
      logger: pino({ level: "silent" }),
      metrics: createRunMetrics(() => new Map()),
      onLifecycle: (listener) => lifecycle.push(listener),
    });
  });
  afterAll(async () => {
    await service?.drain(0);
    await app?.close();
    await store?.flush();
    rmSync(scratch, { recursive: true, force: true });
  });
  const call: AppInMemory["call"] = async (key, path, init = {}) => {
    const answer = await (app as FastifyInstance).inject({
      method: (init.method ?? "GET") as "GET",
      url: path,
      headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
      ...(init.body === undefined ? {} : { payload: JSON.stringify(init.body) }),
      ...(init.payload === undefined ? {} : { payload: init.payload }),
    });
    return { status: answer.statusCode, headers: answer.headers, text: answer.body, json: () => JSON.parse(answer.body) as Record<string, unknown> };
  };
  const expectStatus = (answer: Answer, status: number, what: string) => {
    if (answer.status !== status) throw new Error(`${what} was answered ${answer.status}, not ${status}: ${answer.text}`);
  };
  return {
    token,
    app: () => app as FastifyInstance,
    store: () => store as ServiceStore,
    service: () => service as RunService,
    call,
    makeKey: async (tenant, scope) => {
      const made = await call(token, "/v1/keys", { method: "POST", body: { tenant, scope } });
      expectStatus(made, 201, `POST /v1/keys for ${tenant}`);
      return made.json()["key"] as string;
    },
    submit: async (key, body, headers = {}) => {
      const answer = await call(key, "/v1/runs", { method: "POST", body: { cli: "claude", ...body }, headers });
      expectStatus(answer, 202, "POST /v1/runs");
      return answer.json()["id"] as string;
    },
    ended: async (key, id) => {
      // Scripted Runs end within a few turns of the event loop; a slow machine gets 5 s.
      for (let waited = 0; waited < 5_000; waited += 10) {
        const run = (await call(key, `/v1/runs/${id}`)).json();
        if (run["endedAt"] !== undefined) return run;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`Run ${id} did not end within 5 s`);
    },
  };
}

export type AppOnSocket = {
  /** `http://127.0.0.1:<port>`, once beforeAll has run. */
  readonly url: () => string;
  /** The app itself, once beforeAll has run (its server: what it holds for each connection). */
  readonly app: () => FastifyInstance;
  /** The start-up token: the Operator's, admin scope. */
  readonly token: string;
};

/** Registers beforeAll/afterAll that serve the app over `service()` (called in beforeAll) and the in-memory store's tenancy and feed on a free loopback port. */
export function useAppOnSocket(name: string, service: () => Promise<RunService> | RunService): AppOnSocket {
  const scratch = mkdtempSync(join(tmpdir(), `agentcage-${name}-`));
  const token = `a-token-for-${name}`;
  let url = "";
  let made: FastifyInstance | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const store = await createMemoryStore(join(scratch, "runs"));
    const app = await buildApp({
      service: await service(),
      token,
      tenancy: store.tenancy,
      feed: store.feed,
      quotasOf: () => ({ maxRunning: 100, maxQueued: 100 }),
      readiness: async () => ({ ready: true, engine: true, image: true, credentials: {}, slots: { total: 1, running: 0, queued: 0 } }),
      facts,
      logger: pino({ level: "silent" }),
      metrics: createRunMetrics(() => new Map()),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    made = app;
    close = () => app.close();
  });
  afterAll(async () => {
    await close?.();
    rmSync(scratch, { recursive: true, force: true });
  });
  return { url: () => url, app: () => made as FastifyInstance, token };
}
