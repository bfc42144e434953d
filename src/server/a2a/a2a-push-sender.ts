// How an A2A task's events reach its push notification configs: each event, serialized as the SDK
// does for the A2A version the config was set over (1.0: a StreamResponse; 0.3: the bare event),
// POSTed by the webhooks' own path (webhook-post.ts: the address checked again and pinned, no
// redirect, one deadline, signed per Standard Webhooks with the task's tenant's secret), with the
// config's token or authentication. One attempt per event, in order per task; a failure is logged
// (never a token, a secret or the url) and the task goes on. The Run's own webhooks are the ones retried.

import { randomUUID } from "node:crypto";
import type { StreamResponse, Task, TaskPushNotificationConfig } from "@a2a-js/sdk";
import { A2A_LEGACY_PROTOCOL_VERSION } from "@a2a-js/sdk/compat/v0_3";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import { V1PushNotificationSerializer, type PushNotificationSender, type PushNotificationSerializer } from "@a2a-js/sdk/server";
import type { FastifyBaseLogger } from "fastify";
import { MAX_PENDING_PUSHES_PER_TASK, PUSH_ATTEMPT_TIMEOUT_MS } from "../a2a-limits.js";
import type { RunPushStore } from "./a2a-push-store.js";
import type { TenantStore } from "../tenancy/index.js";
import { postWebhook } from "../webhooks/index.js";

/** The A2A 1.0 spec's header for a config's token (the SDK's default sender's too). */
const NOTIFICATION_TOKEN_HEADER = "x-a2a-notification-token";

const V1_SERIALIZER = new V1PushNotificationSerializer();
const V03_SERIALIZER = new V03PushNotificationSerializer();

export type PushSenderOptions = {
  readonly store: RunPushStore;
  readonly tenants: TenantStore;
  readonly allowPrivate: boolean;
  readonly logger: FastifyBaseLogger;
  /** Aborted when the service stops: pushes in flight are cut. */
  readonly signal: AbortSignal;
  readonly attemptTimeoutMs?: number;
};

export function createPushSender(options: PushSenderOptions): PushNotificationSender {
  const { store, logger } = options;
  /** Each task's pushes, one event after the other, and how many wait. */
  const queues = new Map<string, { tail: Promise<void>; waiting: number }>();

  const push = async (taskId: string, config: TaskPushNotificationConfig, serializer: PushNotificationSerializer, event: StreamResponse, task?: Task) => {
    const pushes = store.pushesOf(taskId);
    const secret = pushes === undefined ? undefined : options.tenants.get(pushes.tenant)?.webhookSecret;
    if (secret === undefined) return logger.warn({ taskId, configId: config.id }, "an A2A push notification was not sent: its tenant has no webhook secret");
    const { body, contentType } = serializer.serialize(event, task);
    const result = await postWebhook(
      { url: config.url, webhookId: `msg_${randomUUID()}`, payload: body, secret, contentType, headers: authHeaders(config) },
      { allowPrivate: options.allowPrivate, timeoutMs: options.attemptTimeoutMs ?? PUSH_ATTEMPT_TIMEOUT_MS, signal: options.signal },
    );
    if (!result.delivered && !options.signal.aborted) {
      const answer = result.status === undefined ? result.error : `HTTP ${result.status}`;
      logger.warn({ taskId, configId: config.id, event: event.payload?.$case, answer }, "an A2A push notification was not delivered");
    }
  };

  return {
    send: async (event, _context, task) => {
      const taskId = taskIdOf(event);
      const pushes = taskId === undefined ? undefined : store.pushesOf(taskId);
      if (taskId === undefined || pushes === undefined || options.signal.aborted) return;
      const queue = queues.get(taskId) ?? { tail: Promise.resolve(), waiting: 0 };
      if (queue.waiting >= MAX_PENDING_PUSHES_PER_TASK) {
        return logger.warn(
          { taskId, event: event.payload?.$case },
          "an A2A push notification was not sent: too many of its task's wait (MAX_PENDING_PUSHES_PER_TASK)",
        );
      }
      queue.waiting += 1;
      queues.set(taskId, queue);
      // The configs the task has when the event happened, each with its own version's body.
      const configs = pushes.configs.map((stored) => ({
        config: stored.config,
        serializer: stored.wireVersion === A2A_LEGACY_PROTOCOL_VERSION ? V03_SERIALIZER : V1_SERIALIZER,
      }));
      const snapshot = task === undefined ? undefined : structuredClone(task);
      const turn = queue.tail.then(() =>
        Promise.all(
          configs.map(({ config, serializer }) =>
            push(taskId, config, serializer, event, snapshot).catch((error: unknown) =>
              logger.warn({ taskId, configId: config.id, err: error instanceof Error ? error.message : String(error) }, "an A2A push notification failed"),
            ),
          ),
        ).then(() => undefined),
      );
      queue.tail = turn;
      await turn;
      queue.waiting -= 1;
      if (queue.waiting === 0 && queues.get(taskId) === queue) queues.delete(taskId);
    },
  };
}

/** The config's own authentication as an Authorization header, else its token in the A2A token header (as the SDK's sender chooses). */
function authHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  const { authentication, token } = config;
  if (authentication !== undefined && authentication.scheme !== "" && authentication.credentials !== "")
    return { authorization: `${authentication.scheme} ${authentication.credentials}` };
  return token === "" ? {} : { [NOTIFICATION_TOKEN_HEADER]: token };
}

function taskIdOf(event: StreamResponse): string | undefined {
  const payload = event.payload;
  if (payload === undefined) return undefined;
  const id = payload.$case === "task" ? payload.value.id : payload.value.taskId;
  return id === "" ? undefined : id;
}
