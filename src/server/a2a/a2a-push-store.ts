// Where an A2A task's push notification configs are kept: in memory, by task, each task's owned by
// the tenant of its Run (or of the call that made it, before the Run exists), at most
// MAX_PUSH_CONFIGS_PER_TASK, its url checked as a webhook's callback URL is when it is set. Another
// tenant's task has no configs to read or change: it is an unknown task. They go with their Run
// (DELETE, retention) and do not outlive a restart; a get or a list never answers a token back.

import type { TaskPushNotificationConfig } from "@a2a-js/sdk";
import { RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { A2A_LEGACY_PROTOCOL_VERSION } from "@a2a-js/sdk/compat/v0_3";
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from "@a2a-js/sdk/server";
import { randomUUID } from "node:crypto";
import { quote } from "../../errors/index.js";
import { callerOf } from "./a2a-caller.js";
import { MAX_PUSH_CONFIGS_PER_TASK, MAX_PUSH_CREDENTIAL_CHARACTERS, MAX_PUSH_URL_CHARACTERS, MAX_TASKS_KEPT } from "../a2a-limits.js";
import { checkCallbackUrl, type Resolver } from "../webhooks/index.js";
import { sees } from "../caller.js";
import type { RunService } from "../runs/index.js";

/** One task's configs and the tenant whose secret signs what is pushed to them. */
export type TaskPushes = { readonly tenant: string; readonly configs: readonly StoredPushNotificationConfig[] };

export type RunPushStore = PushNotificationStore & {
  /** The task the SDK knew by `taskId` is the Run `runId` (a2a-executor.ts): its configs are that Run's now. */
  readonly follow: (taskId: string, runId: string) => void;
  /** The Run was deleted: its task's configs go with it. */
  readonly forget: (runId: string) => void;
  /** A task's configs as set, tokens and all, for the sender alone. */
  readonly pushesOf: (taskId: string) => TaskPushes | undefined;
};

export type PushStoreOptions = {
  readonly service: RunService;
  /** Private and loopback receivers allowed (agentcage serve --allow-private-callbacks). */
  readonly allowPrivate: boolean;
  readonly resolve?: Resolver;
};

type Kept = { readonly tenant: string; configs: StoredPushNotificationConfig[]; ran: boolean };

export function createRunPushStore(options: PushStoreOptions): RunPushStore {
  const { service } = options;
  const kept = new Map<string, Kept>();

  /** The task's configs when the caller sees the task; undefined when it has none or is another tenant's. */
  const visible = (taskId: string, context: ServerCallContext): Kept | undefined => {
    const entry = kept.get(taskId);
    return entry !== undefined && sees(callerOf(context), entry.tenant) ? entry : undefined;
  };

  /** Tasks that never became a Run (rejected: the queue was full) keep their configs until MAX_TASKS_KEPT newer ones came. */
  const boundRunless = () => {
    const runless = [...kept].filter(([, entry]) => !entry.ran);
    for (const [taskId] of runless.slice(0, Math.max(0, runless.length - MAX_TASKS_KEPT))) kept.delete(taskId);
  };

  return {
    save: async (taskId, context, config) => {
      const caller = callerOf(context);
      const run = await service.get(taskId);
      const entry = kept.get(taskId);
      const owner = run?.tenant ?? entry?.tenant ?? caller.tenant;
      if (!sees(caller, owner)) throw new TaskNotFoundError(`Task not found: ${taskId}`);
      await checkConfig(config, options);
      // As the SDK's own store: an empty id is given one, seen by the caller through the same object.
      if (config.id === "") config.id = randomUUID();
      const configs = entry?.configs ?? [];
      const others = configs.filter((stored) => stored.config.id !== config.id);
      if (others.length >= MAX_PUSH_CONFIGS_PER_TASK) {
        throw new RequestMalformedError(
          `task ${taskId} has ${others.length} push notification configs already, its most (MAX_PUSH_CONFIGS_PER_TASK); delete one first (DeleteTaskPushNotificationConfig), or set one with the id of one it has to replace it`,
        );
      }
      const stored = { config: structuredClone({ ...config, taskId }), wireVersion: context.requestedVersion ?? A2A_LEGACY_PROTOCOL_VERSION };
      kept.set(taskId, { tenant: owner, configs: [...others, stored], ran: entry?.ran ?? run !== undefined });
      boundRunless();
    },
    load: async (taskId, context) => (visible(taskId, context)?.configs ?? []).map((stored) => withoutSecrets(stored.config)),
    delete: async (taskId, context, configId) => {
      const entry = visible(taskId, context);
      if (entry === undefined) return;
      entry.configs = entry.configs.filter((stored) => stored.config.id !== (configId ?? taskId));
      if (entry.configs.length === 0) kept.delete(taskId);
    },
    follow: (taskId, runId) => {
      const entry = kept.get(taskId);
      if (entry === undefined) return;
      kept.delete(taskId);
      // A retried message is the same Run: its configs join those the Run has, the newest kept.
      const before = kept.get(runId)?.configs ?? [];
      const configs = [...before.filter((stored) => !entry.configs.some((added) => added.config.id === stored.config.id)), ...entry.configs]
        .slice(-MAX_PUSH_CONFIGS_PER_TASK)
        .map((stored) => ({ ...stored, config: { ...stored.config, taskId: runId } }));
      kept.set(runId, { tenant: entry.tenant, configs, ran: true });
    },
    forget: (runId) => void kept.delete(runId),
    pushesOf: (taskId) => kept.get(taskId),
  };
}

/** The config as answered to a get or a list: where it points, never the token or credentials it holds. */
function withoutSecrets(config: TaskPushNotificationConfig): TaskPushNotificationConfig {
  return {
    ...structuredClone(config),
    token: "",
    ...(config.authentication === undefined ? {} : { authentication: { scheme: config.authentication.scheme, credentials: "" } }),
  };
}

/** Refuses, naming the field, a config the service would not or could not push to. */
async function checkConfig(config: TaskPushNotificationConfig, options: PushStoreOptions): Promise<void> {
  const { url } = config;
  if (url.length > MAX_PUSH_URL_CHARACTERS) {
    throw new RequestMalformedError(
      `pushNotificationConfig.url is ${url.length} characters, over ${MAX_PUSH_URL_CHARACTERS} (MAX_PUSH_URL_CHARACTERS); give a shorter address`,
    );
  }
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new RequestMalformedError(
      `pushNotificationConfig.url ${quote(url)} is not an http or https URL; write the address your receiver listens at, e.g. https://hooks.example.com/a2a`,
    );
  }
  const credentials = [
    ["token", config.token],
    ["authentication.scheme", config.authentication?.scheme ?? ""],
    ["authentication.credentials", config.authentication?.credentials ?? ""],
  ] as const;
  if (credentials.reduce((sum, [, value]) => sum + value.length, 0) > MAX_PUSH_CREDENTIAL_CHARACTERS) {
    throw new RequestMalformedError(
      `pushNotificationConfig's token and authentication are over ${MAX_PUSH_CREDENTIAL_CHARACTERS} characters together (MAX_PUSH_CREDENTIAL_CHARACTERS); give a shorter token`,
    );
  }
  // Each is sent in a header: printable ASCII only. The value is never quoted back: it is a secret.
  for (const [name, value] of credentials) {
    if (!/^[\x20-\x7e]*$/.test(value)) {
      throw new RequestMalformedError(`pushNotificationConfig.${name} holds a character that cannot be sent in an HTTP header; use printable ASCII only`);
    }
  }
  const checked = await checkCallbackUrl(url, options.allowPrivate, options.resolve);
  if (checked.ok) return;
  if (checked.why.startsWith("resolves to")) {
    throw new RequestMalformedError(
      `pushNotificationConfig.url ${quote(url)} ${checked.why}, and this service pushes notifications to public addresses only; give the address of a receiver the service can reach, or ask the Operator to allow the deployment's own receivers (agentcage serve --allow-private-callbacks)`,
    );
  }
  throw new RequestMalformedError(`pushNotificationConfig.url ${quote(url)} ${checked.why}; give the address of a receiver the service can reach`);
}
