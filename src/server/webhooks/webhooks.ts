// The webhooks: a Run with a callback URL (its own, or its tenant's default) has run.started and
// run.finished POSTed there, signed with its tenant's secret, at least once: each owed webhook is
// kept in the Run's deliveries in the Run Store (the file store's deliveries.jsonl) before its first
// attempt, each attempt after it, and one not delivered when the service stopped is tried again at
// the next start while its time lasts.
// A webhook's id is the same for every attempt (a receiver dedupes by it); its body never holds the
// prompt, a key, a secret or the agent's output. A deleted Run is owed nothing more.

import pLimit from "p-limit";
import type { Logger } from "pino";
import type { Lifecycle, LifecycleType, ServiceRunRequest } from "../runs/index.js";
import type { RunStore, StoredDelivery } from "../runs/index.js";
import type { TenantStore } from "../tenancy/index.js";
import { DEFAULT_RETRY_SCHEDULE, nextAttemptDelay, type RetrySchedule } from "./webhook-schedule.js";
import { postWebhook, type AttemptResult, type WebhookMessage } from "./webhook-post.js";

/** Attempts in flight at once, across every Run. */
const CONCURRENT_ATTEMPTS = 8;
/** How long one attempt may take, the lookup, the connection and the answer together. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** On stop: how long attempts in flight may finish before they are cut (and tried again at the next start). */
const STOP_GRACE_MS = 2_000;

const isWebhookType = (type: LifecycleType): type is StoredDelivery["type"] => type === "run.started" || type === "run.finished";

export type WebhooksOptions = {
  /** The service's Run Store (serve's one): each Run's request and Outcome, and its deliveries. */
  readonly store: RunStore;
  readonly tenants: TenantStore;
  readonly allowPrivate: boolean;
  readonly logger: Logger;
  readonly schedule?: RetrySchedule;
  readonly attemptTimeoutMs?: number;
};

export type Webhooks = {
  /** Hears every step of every Run's life (serve's lifecycle listeners). */
  readonly listener: (change: Lifecycle) => void;
  /** After a restart: tries again every webhook a Run kept still owes and still has time for (the store knows which Runs owe one). */
  readonly resume: () => Promise<void>;
  /** No more attempts; those in flight get a moment, then are cut. */
  readonly stop: () => Promise<void>;
};

/** One webhook owed and not yet delivered. */
type Owed = {
  readonly runId: string;
  readonly tenant: string;
  readonly webhookId: string;
  readonly type: StoredDelivery["type"];
  readonly url: string;
  readonly payload: string;
  /** When the event happened (epoch ms): the bound counts from it. */
  readonly since: number;
  attempts: number;
  timer?: NodeJS.Timeout | undefined;
  inFlight?: AbortController | undefined;
};

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const { logger, tenants, store } = options;
  const schedule = options.schedule ?? DEFAULT_RETRY_SCHEDULE;
  const limit = pLimit(CONCURRENT_ATTEMPTS);
  const owed = new Map<string, Owed>();
  /** Each Run's run.started first attempt: its run.finished waits for it, so a receiver hears them in order. */
  const started = new Map<string, Promise<void>>();
  const working = new Set<Promise<void>>();
  let stopped = false;

  const track = (work: Promise<void>) => {
    const settled = work.catch((error: unknown) =>
      logger.error({ err: error instanceof Error ? error.message : String(error) }, "a webhook could not be handled"),
    );
    working.add(settled);
    void settled.finally(() => working.delete(settled));
    return settled;
  };

  /** Keeps a line of the Run's deliveries; false when the Run was deleted meanwhile: it is owed nothing more. */
  const record = (runId: string, line: StoredDelivery): Promise<boolean> => store.appendDelivery(runId, line);

  const attempt = async (webhook: Owed): Promise<void> => {
    webhook.timer = undefined;
    if (stopped || owed.get(webhook.webhookId) !== webhook) return;
    const controller = new AbortController();
    webhook.inFlight = controller;
    const secret = tenants.get(webhook.tenant)?.webhookSecret;
    const message: WebhookMessage = { url: webhook.url, webhookId: webhook.webhookId, payload: webhook.payload, secret: secret ?? "" };
    const at = new Date();
    const result: AttemptResult =
      secret === undefined
        ? { delivered: false, error: `the tenant ${JSON.stringify(webhook.tenant)} has no webhook secret`, durationMs: 0 }
        : await limit(() =>
            postWebhook(message, { allowPrivate: options.allowPrivate, timeoutMs: options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS, signal: controller.signal }),
          );
    webhook.inFlight = undefined;
    // Cut by a stop or a delete: not an answer of the receiver's; a stop's is tried again at the next start.
    if (controller.signal.aborted) return;
    webhook.attempts += 1;
    const delay = result.delivered ? undefined : nextAttemptDelay(schedule, webhook.attempts, Date.now() - webhook.since);
    const kept = await record(webhook.runId, {
      kind: "attempt",
      webhookId: webhook.webhookId,
      type: webhook.type,
      at: at.toISOString(),
      attempt: webhook.attempts,
      ...result,
      ...(delay === undefined ? {} : { nextAttemptAt: new Date(Date.now() + delay).toISOString() }),
    });
    if (!result.delivered) {
      const answer = result.status === undefined ? result.error : `HTTP ${result.status}`;
      logger.warn(
        { runId: webhook.runId, webhookId: webhook.webhookId, attempt: webhook.attempts, answer, retrying: delay !== undefined },
        "a webhook was not delivered",
      );
    }
    if (delay === undefined || !kept) owed.delete(webhook.webhookId);
    else later(webhook, delay);
  };

  const later = (webhook: Owed, delay: number) => {
    if (stopped || owed.get(webhook.webhookId) !== webhook) return;
    webhook.timer = setTimeout(() => void track(attempt(webhook)), delay);
    // A webhook owed keeps no process alive: stop() clears it, and the next start resumes it.
    webhook.timer.unref();
  };

  const open = async (change: Lifecycle & { readonly type: StoredDelivery["type"] }): Promise<void> => {
    const { record: run, type } = change;
    const webhookId = webhookIdOf(run.id, type);
    if (owed.has(webhookId)) return;
    const request = (await store.request(run.id).catch(() => undefined)) as ServiceRunRequest | undefined;
    const url = request?.callbackUrl ?? tenants.get(run.tenant)?.callbackUrl;
    if (url === undefined || stopped) return;
    const payload = JSON.stringify({ type, timestamp: change.at, data: await dataOf(change) });
    const webhook: Owed = { runId: run.id, tenant: run.tenant, webhookId, type, url, payload, since: Date.parse(change.at), attempts: 0 };
    owed.set(webhookId, webhook);
    if (!(await record(run.id, { kind: "owed", webhookId, type, at: change.at, url, payload }))) return void owed.delete(webhookId);
    if (type === "run.finished") await started.get(run.id);
    await attempt(webhook);
  };

  const dataOf = async ({ record: run, type, at }: Lifecycle) => {
    const base = { runId: run.id, tenant: run.tenant, state: run.state, labels: run.labels };
    if (type === "run.started") return { ...base, queuedMs: Math.max(0, Date.parse(at) - Date.parse(run.createdAt)) };
    const outcome = ((await store.outcome(run.id)) ?? {}) as { ok?: boolean; reason?: string; durationMs?: number; queuedMs?: number };
    return {
      ...base,
      ...(typeof outcome.ok === "boolean" ? { ok: outcome.ok } : {}),
      ...(typeof outcome.reason === "string" ? { reason: outcome.reason } : {}),
      ...(typeof outcome.durationMs === "number" ? { durationMs: outcome.durationMs } : {}),
      ...(typeof outcome.queuedMs === "number" ? { queuedMs: outcome.queuedMs } : {}),
      ...(run.usage ?? {}),
    };
  };

  const forget = (runId: string) => {
    started.delete(runId);
    for (const webhook of owed.values()) {
      if (webhook.runId !== runId) continue;
      clearTimeout(webhook.timer);
      webhook.inFlight?.abort();
      owed.delete(webhook.webhookId);
    }
  };

  return {
    listener: (change) => {
      if (stopped) return;
      if (change.type === "run.deleted") return forget(change.record.id);
      const { type } = change;
      if (!isWebhookType(type)) return;
      const opened = track(open({ ...change, type }));
      if (change.type === "run.started") {
        started.set(change.record.id, opened);
        void opened.then(() => {
          if (started.get(change.record.id) === opened) started.delete(change.record.id);
        });
      }
    },
    resume: async () => {
      // Only the Runs the store says owe one: a start reads no other Run's deliveries.
      for (const id of await store.owing()) {
        const run = await store.get(id);
        if (run === undefined) continue;
        for (const webhook of await stillOwed(await store.deliveries(run.id))) {
          if (stopped || owed.has(webhook.webhookId)) continue;
          const resumed: Owed = { ...webhook, runId: run.id, tenant: run.tenant };
          const wait = webhook.nextAttemptAt - Date.now();
          if (Date.now() - webhook.since > schedule.boundMs) {
            await record(run.id, { kind: "abandoned", webhookId: webhook.webhookId, type: webhook.type, at: new Date().toISOString() });
            continue;
          }
          owed.set(webhook.webhookId, resumed);
          later(resumed, Math.max(0, wait));
        }
      }
    },
    stop: async () => {
      stopped = true;
      for (const webhook of owed.values()) clearTimeout(webhook.timer);
      const grace = new Promise<void>((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
      await Promise.race([Promise.all([...working]), grace]);
      for (const webhook of owed.values()) webhook.inFlight?.abort();
      await Promise.all([...working]);
      owed.clear();
    },
  };
}

/** The same for every attempt of one webhook, so a receiver that heard it once can drop the others. */
export function webhookIdOf(runId: string, type: LifecycleType): string {
  return `msg_${runId}_${type.replace("run.", "")}`;
}

type Resumable = Omit<Owed, "runId" | "tenant" | "timer" | "inFlight"> & { readonly nextAttemptAt: number };

/** The webhooks a Run's deliveries.jsonl says are owed and neither delivered nor given up, with when each is next tried. */
export function stillOwed(lines: readonly StoredDelivery[]): Resumable[] {
  const webhooks = new Map<string, Resumable>();
  for (const line of lines) {
    if (line.kind === "owed" && line.url !== undefined && line.payload !== undefined) {
      const since = Date.parse(line.at);
      webhooks.set(line.webhookId, {
        webhookId: line.webhookId,
        type: line.type,
        url: line.url,
        payload: line.payload,
        since,
        attempts: 0,
        nextAttemptAt: since,
      });
      continue;
    }
    const known = webhooks.get(line.webhookId);
    if (known === undefined) continue;
    if (line.kind === "abandoned" || line.delivered === true || line.nextAttemptAt === undefined) webhooks.delete(line.webhookId);
    else webhooks.set(line.webhookId, { ...known, attempts: line.attempt ?? known.attempts + 1, nextAttemptAt: Date.parse(line.nextAttemptAt) });
  }
  return [...webhooks.values()];
}
