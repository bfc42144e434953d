// The service's real app (every route, its parsers, auth and error answers) over the in-memory store
// and a RunService with no engine: the route tests' service. Two ways in: `useAppInMemory`, serve's
// own assembly (the metered Runs, the webhooks, the app and its readiness) over a scripted runner,
// answered through `app.inject()` (no socket); and `useAppOnSocket`, a RunService the test makes, on a
// loopback port, for what needs a client's HTTP (racing sockets). Both are started in beforeAll and
// closed in afterAll; `startAppInMemory` is the first, started and stopped by the test (a restart).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import type { AgentEvent, AgentRequestInput } from "../../src/agents/index.js";
import type { AgentOutcome, AgentRunner, AgentRunOptions } from "../../src/runner/index.js";
import { createDegradations } from "../../src/runtime/index.js";
import type { ServiceFacts } from "../../src/server/http/index.js";
import { buildApp } from "../../src/server/serve/app.js";
import { createRunMetrics } from "../../src/server/metrics/metrics.js";
import type { Lifecycle, ResolvedQuotas, RunService } from "../../src/server/runs/runs.js";
import { buildServiceApp } from "../../src/server/serve/serve-listen.js";
import { createMeteredRuns } from "../../src/server/serve/serve-runs.js";
import { createMemoryStore, openFileStore, type ServiceStore } from "../../src/server/serve/service-store.js";
import { callbackRefusal, createWebhooks, type RetrySchedule } from "../../src/server/webhooks/index.js";

const facts: ServiceFacts = {
  version: "0.0.0",
  startedAt: new Date().toISOString(),
  agentImage: "agentcage-agent:latest",
  standIn: false,
  egress: async () => ({ networkPolicy: "none" as const, proxy: "none" as const }),
};

/**
 * What one scripted Run does: tells its events, leaves `harvest`'s files in its Harvest, then ends
 * with its Outcome (default: completed, 100 tokens in, 20 out, $0.001, and the Harvest's count), or
 * goes on until cancelled.
 */
export type ScriptedRun = {
  readonly events?: readonly AgentEvent[];
  readonly outcome?: Partial<AgentOutcome>;
  readonly untilCancelled?: boolean;
  /** Files by their path in the Harvest, written where the runner is told to harvest to; default none. */
  readonly harvest?: Readonly<Record<string, string>>;
};

/** What the runner was handed for one Run, beside its prompt. */
export type Handed = {
  readonly request: AgentRequestInput;
  /** The directory of the Run's input files, when it has any. */
  readonly inputs?: string;
  readonly harvestTo?: string;
};

/** An agent runner with no engine: each Run plays what `script` says of its prompt; `prompts` are the Runs it started, in order. */
export function scriptedRunner(script: (prompt: string, handed: Handed) => ScriptedRun = () => ({})): AgentRunner & { readonly prompts: readonly string[] } {
  const prompts: string[] = [];
  const run = async (request: AgentRequestInput, prompt: string, options: AgentRunOptions = {}): Promise<AgentOutcome> => {
    prompts.push(prompt);
    const handed: Handed = {
      request,
      ...(options.inputs === undefined ? {} : { inputs: options.inputs.directory }),
      ...(options.harvestTo === undefined ? {} : { harvestTo: options.harvestTo }),
    };
    const { events = [], outcome = {}, untilCancelled = false, harvest } = script(prompt, handed);
    for (const event of events) options.onEvent?.(event);
    if (untilCancelled && options.signal?.aborted !== true)
      await new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve(), { once: true }));
    const cancelled = options.signal?.aborted === true;
    const files = Object.entries(harvest ?? {});
    if (!cancelled && options.harvestTo !== undefined)
      for (const [path, text] of files) {
        mkdirSync(dirname(join(options.harvestTo, path)), { recursive: true });
        writeFileSync(join(options.harvestTo, path), text);
      }
    return {
      runId: options.runId ?? "scripted",
      ok: !cancelled,
      reason: cancelled ? "cancelled" : "completed",
      durationMs: 5,
      stdoutBytes: 0,
      stderrBytes: 0,
      stderr: "",
      credential: "api_key",
      cli: request.cli,
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
            ...(options.harvestTo === undefined
              ? {}
              : {
                  harvest: {
                    ok: true,
                    files: files.length,
                    directories: 0,
                    bytes: files.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0),
                  },
                }),
          }),
      ...outcome,
    } as AgentOutcome;
  };
  const runner = {
    run,
    check: async () => ({ engine: true, image: true, credentials: { claude: "api_key", codex: "api_key" } }),
    pool: () => undefined,
    degradations: createDegradations(pino({ level: "silent" })),
    holdSession: () => () => undefined,
    close: async () => undefined,
  };
  return Object.assign(runner as unknown as AgentRunner, { prompts });
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
  readonly payload?: string | Buffer;
  readonly headers?: Record<string, string>;
};

export type AppInMemory = {
  /** The start-up token: the Operator's, admin scope. */
  readonly token: string;
  /** Each once beforeAll has run. */
  readonly app: () => FastifyInstance;
  readonly store: () => ServiceStore;
  readonly service: () => RunService;
  /** Where the Run directories are (the runtime directory with a file store). */
  readonly directory: string;
  /** A request as `key` (a bearer token), answered by app.inject(); a body is sent as JSON, a payload as it is. */
  readonly call: (key: string, path: string, init?: CallInit) => Promise<Answer>;
  /** A new key, made with the Operator's token: its whole text. */
  readonly makeKey: (tenant: string, scope: string) => Promise<string>;
  /** Submits as `key` and answers the new Run's id, expecting 202. */
  readonly submit: (key: string, body: Record<string, unknown>, headers?: Record<string, string>) => Promise<string>;
  /** The Run as `key` sees it once it has ended. */
  readonly ended: (key: string, id: string) => Promise<Record<string, unknown>>;
  /** Waits until the Run, as `key` sees it, is in one of `states`. */
  readonly reaches: (key: string, id: string, states: readonly string[]) => Promise<void>;
  /** The app on a free loopback port, listening from the first call on, for what a client reads as it comes (a stream's first event): `http://127.0.0.1:<port>`. */
  readonly url: () => Promise<string>;
};

export type StartedApp = Omit<AppInMemory, "app" | "store" | "service"> & {
  readonly app: FastifyInstance;
  readonly store: ServiceStore;
  readonly service: RunService;
  /** As serve's stop: drains the Runs (no grace), stops the webhooks, closes the app, writes the store. */
  readonly stop: () => Promise<void>;
};

export type AppInMemoryOptions = {
  /** Default: every Run completes at once (scriptedRunner()). */
  readonly runner?: AgentRunner;
  /** Default 2. */
  readonly slots?: number;
  /** Default 100. */
  readonly queueBound?: number;
  /** Webhooks and A2A push notifications to loopback receivers (serve's --allow-private-callbacks); default false. */
  readonly allowPrivateCallbacks?: boolean;
  /** When a webhook is tried again; default the service's own. */
  readonly webhookRetries?: RetrySchedule;
  /** What GET /v1/service says of the deployment; default version 0.0.0, no stand-in, no egress proxy. */
  readonly facts?: Partial<ServiceFacts>;
  /** The file store under this runtime directory (what a restart finds again) instead of the in-memory one; default in memory. */
  readonly runtimeDir?: string;
  /** Sessions kept, as serve --sessions (a Run may resume a session a Run of its tenant ended with); default false. */
  readonly sessions?: boolean;
};

/** Builds, as serve does, the Runs over `runner` (metered, with the webhooks) and the app over them, on the in-memory store or `runtimeDir`'s file store. */
export async function startAppInMemory(name: string, options: AppInMemoryOptions = {}): Promise<StartedApp> {
  const scratch = options.runtimeDir === undefined ? mkdtempSync(join(tmpdir(), `agentcage-${name}-`)) : undefined;
  const directory = options.runtimeDir ?? join(scratch as string, "runs");
  const token = `a-token-for-${name}`;
  const slots = options.slots ?? 2;
  const queueBound = options.queueBound ?? 100;
  const runner = options.runner ?? scriptedRunner();
  const logger = pino({ level: "silent" });
  const store = options.runtimeDir === undefined ? await createMemoryStore(directory) : await openFileStore(directory);
  const allowPrivate = options.allowPrivateCallbacks === true;
  // As serve does: the feed and the webhooks hear every step of every Run's life, and so does whoever the app adds (A2A).
  const webhooks = createWebhooks({
    store: store.runs,
    tenants: store.tenancy.tenants,
    allowPrivate,
    logger,
    ...(options.webhookRetries === undefined ? {} : { schedule: options.webhookRetries }),
  });
  const lifecycle: Array<(change: Lifecycle) => void> = [store.feed.append, webhooks.listener];
  // Every tenant may use the whole service unless the Operator set its quotas.
  const quotasOf = (tenant: string): ResolvedQuotas => ({ maxRunning: slots, maxQueued: queueBound, ...(store.tenancy.tenants.get(tenant)?.quotas ?? {}) });
  const { service, metrics } = createMeteredRuns({
    runner,
    writableRunner: runner,
    store: store.runs,
    files: store.files,
    slots,
    queueBound,
    sessions: options.sessions === true,
    logger,
    quotasOf,
    callbackRefusal: callbackRefusal(store.tenancy.tenants, allowPrivate),
    onLifecycle: (change) => {
      for (const listener of lifecycle) listener(change);
    },
  });
  await service.recover();
  await webhooks.resume();
  const app = await buildServiceApp({
    service,
    metrics,
    runner,
    slots,
    token,
    logger,
    tenancy: store.tenancy,
    feed: store.feed,
    quotasOf,
    allowPrivateCallbacks: allowPrivate,
    onLifecycle: (listener) => lifecycle.push(listener),
    facts: { ...facts, ...options.facts },
  });
  const call: AppInMemory["call"] = async (key, path, init = {}) => {
    const answer = await app.inject({
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
  // Scripted Runs move within a few turns of the event loop; a slow machine gets 5 s.
  const reaches = async (key: string, id: string, states: readonly string[]): Promise<Record<string, unknown>> => {
    let run: Record<string, unknown> = {};
    for (let waited = 0; waited < 5_000; waited += 10) {
      run = (await call(key, `/v1/runs/${id}`)).json();
      if (states.includes(run["state"] as string)) return run;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`Run ${id} is ${String(run["state"])}, not ${states.join(" or ")}, after 5 s`);
  };
  let listening: Promise<string> | undefined;
  return {
    token,
    app,
    store,
    service,
    directory,
    call,
    url: () => (listening ??= app.listen({ host: "127.0.0.1", port: 0 }).then(() => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`)),
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
      for (let waited = 0; waited < 5_000; waited += 10) {
        const run = (await call(key, `/v1/runs/${id}`)).json();
        if (run["endedAt"] !== undefined) return run;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`Run ${id} did not end within 5 s`);
    },
    reaches: async (key, id, states) => void (await reaches(key, id, states)),
    stop: async () => {
      await service.drain(0);
      await webhooks.stop();
      app.server.closeAllConnections();
      await app.close();
      await store.flush();
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** Registers beforeAll/afterAll that start the app as startAppInMemory does and stop it. */
export function useAppInMemory(name: string, options: AppInMemoryOptions = {}): AppInMemory {
  let started: StartedApp | undefined;
  beforeAll(async () => {
    started = await startAppInMemory(name, options);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const now = () => {
    if (started === undefined) throw new Error(`the app of ${name} is used before beforeAll made it`);
    return started;
  };
  return {
    token: `a-token-for-${name}`,
    get directory() {
      return now().directory;
    },
    app: () => now().app,
    store: () => now().store,
    service: () => now().service,
    call: (...args) => now().call(...args),
    makeKey: (...args) => now().makeKey(...args),
    submit: (...args) => now().submit(...args),
    ended: (...args) => now().ended(...args),
    reaches: (...args) => now().reaches(...args),
    url: () => now().url(),
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
