// The A2A face: the agent card at /.well-known/agent-card.json and one JSON-RPC endpoint that
// speaks A2A 1.0 (SendMessage, SendStreamingMessage, GetTask, CancelTask, …) and, on the same URL,
// 0.3 (message/send, message/stream, tasks/get, tasks/cancel, …), both through @a2a-js/sdk's own
// request and transport handlers; this file only adapts them to Fastify (SSE for streams, as the
// SDK's express adapter does). Tasks are the service's Runs; nothing here touches the engine. Each
// call is its Caller's: it sees and makes its own tenant's tasks only, and a read-only key changes none.
// Push notifications go through the service's own guarded, signed path (a2a-push-store.ts, a2a-push-sender.ts).

import { A2A_VERSION_HEADER, AgentCard, Extensions, HTTP_EXTENSION_HEADER, type Message } from "@a2a-js/sdk";
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { A2A_ERROR_CODE, RequestMalformedError } from "@a2a-js/sdk/errors";
import { DefaultRequestHandler, JsonRpcTransportHandler, defaultServerCallContextBuilder, validateVersion, type A2ARequestHandler } from "@a2a-js/sdk/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { CallerUser, scopeForMethod } from "./a2a-caller.js";
import { agentCard } from "./a2a-card.js";
import { createRunBuses, createRunExecutor, type RunBuses } from "./a2a-executor.js";
import { A2A_JSONRPC_PATH } from "../a2a-limits.js";
import { createPushSender } from "./a2a-push-sender.js";
import { createRunPushStore } from "./a2a-push-store.js";
import { refusalOf } from "./a2a-request.js";
import { createRunTaskStore } from "./a2a-tasks.js";
import { allows, type Scope } from "../caller.js";
import { unauthorized } from "../http/index.js";
import { keyEndedRpcError, type KeyStreams } from "../http/index.js";
import { bodyRefusal, nestsTooDeeply, TOO_DEEP } from "../http/index.js";
import { SSE_KEEPALIVE_MS } from "../limits.js";
import type { Lifecycle, RunService } from "../runs/index.js";
import { errorBody } from "../http/index.js";
import type { TenantStore } from "../tenancy/index.js";

export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

export type A2AOptions = {
  readonly service: RunService;
  /** The service's address as callers reach it (behind a proxy); default: the address each request was sent to. */
  readonly publicUrl?: string;
  /** Told of each call refused for its key's scope (for the audit log); the request carries its Caller. */
  readonly onForbidden?: (request: FastifyRequest, method: string, needed: Scope) => void;
  /** Told of each Run a call made (or was answered again) or cancelled, and how that went (for the audit log). */
  readonly onActed?: (request: FastifyRequest, action: "run.create" | "run.cancel", runId: string | undefined, result: number | string) => void;
  /** Whose webhook secret signs a task's push notifications. */
  readonly tenants: TenantStore;
  /** Push notifications to private and loopback receivers allowed (agentcage serve --allow-private-callbacks). */
  readonly allowPrivateCallbacks?: boolean;
  /** Hears every step of every Run's life: a deleted Run's push notification configs go with it. */
  readonly onLifecycle?: (listener: (change: Lifecycle) => void) => void;
  /** Where each stream is held by its key, so revoking the key or its expiry ends it. */
  readonly streams: KeyStreams;
};

type RpcAnswer = { readonly jsonrpc: string; readonly id: string | number | null; readonly result?: unknown; readonly error?: unknown };

export async function registerA2A(app: FastifyInstance, options: A2AOptions): Promise<void> {
  const tasks = createRunTaskStore(options.service);
  const allowPrivate = options.allowPrivateCallbacks === true;
  const pushes = createRunPushStore({ service: options.service, allowPrivate });
  options.onLifecycle?.((change) => {
    if (change.type === "run.deleted") pushes.forget(change.record.id);
  });
  const stopping = new AbortController();
  app.addHook("onClose", async () => stopping.abort());
  const sender = createPushSender({ store: pushes, tenants: options.tenants, allowPrivate, logger: app.log, signal: stopping.signal });
  const buses = createRunBuses();
  // The SDK's task id becomes the Run's once the Run exists: the task's push configs follow it there.
  const following: RunBuses = {
    ...buses,
    follow: (runId, taskId, tenant, final) => {
      pushes.follow(taskId, runId);
      buses.follow(runId, taskId, tenant, final);
    },
  };
  // The handler reads only capabilities and protocol versions from its card; the served card names the full URL.
  const card = agentCard(A2A_JSONRPC_PATH);
  const handler = refusingUnrunnable(new DefaultRequestHandler(card, tasks, createRunExecutor(options.service, tasks, following), following, pushes, sender));
  const current = new JsonRpcTransportHandler(handler);
  const legacy = new LegacyJsonRpcTransportHandler(handler);

  await app.register(async (scope) => {
    // JSON-RPC answers a malformed body with its own parse error, so the body reaches the SDK as text;
    // one nested too deeply is refused as every route's is, before the SDK walks it.
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
      const text = typeof body === "string" ? body : body.toString("utf8");
      done(nestsTooDeeply(parsedOrUndefined(text)) ? bodyRefusal(TOO_DEEP) : null, text);
    });

    scope.get(AGENT_CARD_PATH, { schema: { hide: true } }, async (request, reply) => {
      // Named from the Host the caller used, so never stored by a cache another caller could be answered from.
      const base = options.publicUrl ?? `${request.protocol}://${request.host}`;
      const endpoint = URL.canParse(A2A_JSONRPC_PATH, base) ? new URL(A2A_JSONRPC_PATH, base).href : A2A_JSONRPC_PATH;
      return reply
        .header("cache-control", "no-store")
        .type("application/json")
        .send(AgentCard.toJSON(agentCard(endpoint)));
    });

    scope.post(A2A_JSONRPC_PATH, { schema: { hide: true } }, async (request, reply) => {
      const version = header(request, A2A_VERSION_HEADER);
      // As the SDK's own adapter decides: no A2A-Version header means a 0.3 caller.
      const isLegacy = (version ?? A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
      const mapError = isLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
      const body = typeof request.body === "string" ? request.body : "";
      // A read-only key may read and follow tasks, never make or cancel one: refused at the door, as
      // every route is (HTTP 403), since A2A leaves authorization to the transport and JSON-RPC has no code for it.
      const method = methodOf(body);
      const needed = method === undefined ? "runs:read" : scopeForMethod(method);
      if (!allows(request.caller, needed)) {
        options.onForbidden?.(request, method ?? "", needed);
        const message = `this key's scope ${request.caller.scope} does not allow the A2A method ${JSON.stringify(method)}; it needs ${needed}: ask the Operator for such a key (agentcage keys create --scope ${needed})`;
        return reply.code(403).send(errorBody("forbidden", message));
      }
      try {
        const { authorization: _token, ...headers } = request.headers;
        const context = defaultServerCallContextBuilder({
          extensions: Extensions.parseServiceParameter(
            isLegacy ? (header(request, LEGACY_HTTP_EXTENSION_HEADER) ?? header(request, HTTP_EXTENSION_HEADER)) : header(request, HTTP_EXTENSION_HEADER),
          ),
          user: new CallerUser(request.caller, (action, runId, result) => options.onActed?.(request, action, runId, result)),
          headers,
          ...(version === undefined ? {} : { requestedVersion: version }),
        });
        validateVersion(context.requestedVersion, card, "JSONRPC");
        const answer = await (isLegacy ? legacy : current).handle(body, context);
        if (context.activatedExtensions !== undefined)
          reply.header(isLegacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER, context.activatedExtensions.join(","));
        if (Symbol.asyncIterator in answer) return await stream(request, reply, answer, { streams: options.streams, id: requestIdOf(body), mapError });
        return reply.code(200).send(answer);
      } catch (error) {
        const mapped = mapError(error);
        return reply.code(mapped.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200).send({ jsonrpc: "2.0", id: requestIdOf(body), error: mapped });
      }
    });
  });
}

/**
 * Server-Sent Events, as the SDK's express adapter sends them: the first answer is awaited before
 * any header, so a refused request is a plain JSON-RPC error; then one `data:` line per answer, an
 * `event: error` if the stream breaks, a comment every SSE_KEEPALIVE_MS, and the end. A client
 * that goes away stops the stream, not the task: its Run goes on, and tasks/get still answers. So
 * does a key that stops being one (revoked, expired): its stream ends at once with an `event: error`
 * whose JSON-RPC error says why (KEY_ENDED_RPC_CODE).
 */
async function stream(
  request: FastifyRequest,
  reply: FastifyReply,
  answers: AsyncGenerator<RpcAnswer, void, undefined>,
  { streams, id, mapError }: { readonly streams: KeyStreams; readonly id: RpcAnswer["id"]; readonly mapError: (error: unknown) => unknown },
): Promise<void> {
  const failure = (error: unknown): RpcAnswer => ({ jsonrpc: "2.0", id, error: mapError(error) });
  let first: IteratorResult<RpcAnswer, void>;
  try {
    first = await answers.next();
  } catch (error) {
    const answer = failure(error);
    return reply.code(200).send(answer);
  }
  const gone = () => void answers.return(undefined).catch(() => undefined);
  const release = streams.hold(request.caller, (why) => {
    write(`event: error\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error: keyEndedRpcError(why) })}\n\n`);
    finish();
  });
  if (typeof release === "string") {
    gone();
    return unauthorized(reply, release);
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" });
  const write = (text: string) => void (res.writableEnded || res.destroyed ? undefined : res.write(text));
  const keepAlive = setInterval(() => write(": keep-alive\n\n"), SSE_KEEPALIVE_MS);
  // The stream's end, whoever ends it: the answers' last, the client gone, the key no longer one.
  const finish = () => {
    release();
    clearInterval(keepAlive);
    request.raw.off("close", gone);
    gone();
    if (!res.writableEnded) res.end();
  };
  request.raw.on("close", gone);
  try {
    if (first.done !== true) write(`data: ${JSON.stringify(first.value)}\n\n`);
    for (let next = first; next.done !== true; ) {
      next = await answers.next();
      if (next.done !== true) write(`data: ${JSON.stringify(next.value)}\n\n`);
    }
  } catch (error) {
    write(`event: error\ndata: ${JSON.stringify(failure(error))}\n\n`);
  } finally {
    finish();
  }
}

/**
 * The SDK's handler, but a message the service cannot run (an unknown cli, a bad output schema, a
 * file part, a follow-up to a task) is refused as invalid params before any task or Run exists.
 */
function refusingUnrunnable(handler: A2ARequestHandler): A2ARequestHandler {
  const check = (message: Message | undefined) => {
    const refusal = refusalOf(message);
    if (refusal !== undefined) throw new RequestMalformedError(refusal);
  };
  return {
    getAgentCard: () => handler.getAgentCard(),
    getAuthenticatedExtendedAgentCard: (params, context) => handler.getAuthenticatedExtendedAgentCard(params, context),
    sendMessage: async (params, context) => {
      check(params.message);
      return handler.sendMessage(params, context);
    },
    sendMessageStream: async function* (params, context) {
      check(params.message);
      yield* handler.sendMessageStream(params, context);
    },
    getTask: (params, context) => handler.getTask(params, context),
    cancelTask: (params, context) => handler.cancelTask(params, context),
    listTasks: (params, context) => handler.listTasks(params, context),
    resubscribe: (params, context) => handler.resubscribe(params, context),
    createTaskPushNotificationConfig: (params, context) => handler.createTaskPushNotificationConfig(params, context),
    getTaskPushNotificationConfig: (params, context) => handler.getTaskPushNotificationConfig(params, context),
    listTaskPushNotificationConfigs: (params, context) => handler.listTaskPushNotificationConfigs(params, context),
    deleteTaskPushNotificationConfig: (params, context) => handler.deleteTaskPushNotificationConfig(params, context),
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === "" ? undefined : first;
}

/** The body as JSON; undefined when it is not JSON (the SDK answers that in JSON-RPC's words). */
function parsedOrUndefined(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The method a JSON-RPC request names, when its body is one (else the SDK answers it as malformed). */
function methodOf(body: string): string | undefined {
  const method = (parsedOrUndefined(body) as { method?: unknown } | null | undefined)?.method;
  return typeof method === "string" ? method : undefined;
}

/** The id of a JSON-RPC request, for an error answered outside the SDK's transport handler. */
function requestIdOf(body: string): string | number | null {
  const id = (parsedOrUndefined(body) as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
