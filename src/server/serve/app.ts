// The HTTP face of the service: Fastify with one plugin per concern (auth, errors, the routes of
// Runs, events, health) and the zod schemas that validate requests also generating /openapi.json.
// Routes only call the RunService; nothing here touches the engine. Every connection is held to
// the limits' timeouts: its first request's headers, each request's headers, each whole request.

import swagger from "@fastify/swagger";
import type { Server } from "node:http";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors, jsonSchemaTransform, serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Logger } from "pino";
import { AgentcageError } from "../../errors/index.js";
import type { PoolStats } from "../../runtime/index.js";
import { registerA2A } from "../a2a/index.js";
import { registerArtifactRoutes } from "../http/index.js";
import { registerAuditTrail } from "../tenancy/index.js";
import { registerAuth } from "../http/index.js";
import { registerConsole } from "../http/index.js";
import type { Scope } from "../caller.js";
import { registerEventRoutes } from "../http/index.js";
import type { Feed } from "../runs/index.js";
import { registerHealthRoutes, type Readiness } from "../http/index.js";
import { CONNECTIONS_CHECK_INTERVAL_MS, HEADERS_TIMEOUT_MS, IDLE_CONNECTION_TIMEOUT_MS, MAX_BODY_BYTES, REQUEST_TIMEOUT_MS } from "../limits.js";
import type { RunMetrics } from "../metrics/index.js";
import { registerAuditRoute } from "../http/index.js";
import { registerPoolRoute } from "../http/index.js";
import { registerFeedRoute } from "../http/index.js";
import { registerKeyRoutes } from "../http/index.js";
import { createKeyStreams } from "../http/index.js";
import { registerMcpRoute } from "../http/index.js";
import { registerTenantRoutes } from "../http/index.js";
import { registerServiceRoute, type ServiceFacts } from "../http/index.js";
import { registerUsageRoute } from "../http/index.js";
import { registerRunRoutes } from "../http/index.js";
import type { Lifecycle, ResolvedQuotas, RunService } from "../runs/index.js";
import type { Tenancy } from "../tenancy/index.js";
import { bodyRefusal, nestsTooDeeply, TOO_DEEP } from "../http/index.js";
import { refusalOf, type ValidationContext } from "../http/index.js";
import { ARTIFACT_PATH_HELP, errorBody } from "../http/index.js";

export type AppOptions = {
  readonly service: RunService;
  readonly token: string;
  /** The tenants' keys, the tenants, the audit log. */
  readonly tenancy: Tenancy;
  /** Every Run's lifecycle, for GET /v1/events. */
  readonly feed: Feed;
  /** A tenant's quotas as they hold now (for GET /v1/tenant). */
  readonly quotasOf: (tenant: string) => ResolvedQuotas;
  readonly readiness: () => Promise<Readiness>;
  /** Its version, start, agent image and egress proxy, for GET /v1/service. */
  readonly facts: ServiceFacts;
  readonly logger: Logger;
  readonly metrics: RunMetrics;
  /** Webhooks and A2A push notifications to private and loopback receivers allowed (serve's --allow-private-callbacks); default false. */
  readonly allowPrivateCallbacks?: boolean;
  /** Adds a listener to every Run's lifecycle (A2A forgets a deleted Run's push notification configs). */
  readonly onLifecycle?: (listener: (change: Lifecycle) => void) => void;
  /** The warm pool's figures now, for GET /v1/pool; default: none (the service keeps no pool). */
  readonly pool?: () => PoolStats | undefined;
  /** Where the console's built files are; default the package's dist/console/. */
  readonly consoleDirectory?: string;
};

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  // pino's Logger is what Fastify logs with; its type parameter differs only in pino's own generics.
  const app: FastifyInstance = Fastify({
    loggerInstance: options.logger as unknown as FastifyBaseLogger,
    bodyLimit: MAX_BODY_BYTES,
    // One line per request would drown the Runs' own log lines; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Fastify's own default is no request timeout at all, and Node checks its timeouts every 30 s.
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS },
  });
  closeSilentConnections(app.server);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "agentcage",
        version: "1",
        description: "Runs AI coding-agent CLIs in one fresh, locked-down container per Run.",
        license: { name: "MIT", identifier: "MIT" },
      },
      // Relative: the service itself, wherever the document was fetched from.
      servers: [{ url: "/", description: "the service that served this document" }],
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // This app's document is always OpenAPI 3.1 (openapi above), never Swagger 2.
    transformObject: (document) => documentAsServed(("openapiObject" in document ? document.openapiObject : {}) as OpenAPIV3_1.Document),
  });
  // An empty JSON body (curl -X POST .../cancel with a content type) means no body, not an error.
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return done(bodyRefusal("the body is not JSON; send a JSON object"), undefined);
    }
    if (nestsTooDeeply(value)) return done(bodyRefusal(TOO_DEEP), undefined);
    done(null, value);
  });
  registerErrors(app);
  const { tenancy } = options;
  // Every stream a tenant's key holds open: revoking the key, or its expiry, ends them.
  const streams = createKeyStreams(tenancy.keys);
  app.addHook("onClose", async () => streams.close());
  // A known key outside its scope: one entry naming what it asked and the scope that needs.
  const forbidden = (request: FastifyRequest, what: string, needed: Scope) =>
    tenancy.audit.record({
      action: "auth.refused",
      tenant: request.caller.tenant,
      key: request.caller.key,
      target: what,
      result: `scope: needs ${needed}`,
      remote: request.ip,
    });
  registerAuth(app, {
    token: options.token,
    keys: tenancy.keys,
    onRefused: (request, refusal, prefix) => tenancy.audit.refused(request.ip, refusal, prefix),
    onForbidden: (request, _caller, needed) => forbidden(request, `${request.method} ${request.url.split("?")[0] ?? ""}`, needed),
  });
  registerAuditTrail(app, tenancy.audit);
  registerHealthRoutes(app, options.readiness);
  registerRunRoutes(app, options.service);
  registerFeedRoute(app, options.feed, streams);
  registerUsageRoute(app, options.service);
  registerServiceRoute(app, { service: options.service, readiness: options.readiness, tenants: tenancy.tenants, facts: options.facts });
  registerArtifactRoutes(app, options.service);
  registerEventRoutes(app, options.service, streams);
  await registerA2A(app, {
    service: options.service,
    tenants: tenancy.tenants,
    onForbidden: (request, method, needed) => forbidden(request, `A2A ${method}`, needed),
    onActed: (request, action, runId, result) =>
      tenancy.audit.record({
        action,
        tenant: request.caller.tenant,
        key: request.caller.key,
        ...(runId === undefined ? {} : { runId }),
        target: "A2A",
        result,
        remote: request.ip,
      }),
    ...(options.allowPrivateCallbacks === undefined ? {} : { allowPrivateCallbacks: options.allowPrivateCallbacks }),
    ...(options.onLifecycle === undefined ? {} : { onLifecycle: options.onLifecycle }),
    streams,
  });
  registerMcpRoute(app, options.service, tenancy.audit, options.facts.version, streams);
  registerKeyRoutes(app, tenancy, streams);
  registerTenantRoutes(app, tenancy, options.quotasOf, options.allowPrivateCallbacks === true);
  registerAuditRoute(app, tenancy);
  registerPoolRoute(app, options.pool ?? (() => undefined));
  options.metrics.register(app);
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
  registerConsole(app, options.consoleDirectory);
  return app;
}

/**
 * What the routes' schemas cannot say themselves: the one-file artifact route's wildcard (`*`,
 * which OpenAPI cannot name) as the parameter `path`, and the multipart form of POST /v1/runs as a
 * schema of its own: the part `request` (the JSON body), then the tar archive `inputs`.
 */
function documentAsServed(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!path.endsWith("/{*}") || item?.get === undefined) {
      paths[path] = item;
      continue;
    }
    const parameters = (item.get.parameters ?? []).map((parameter) =>
      "name" in parameter && parameter.name === "*" ? { ...parameter, name: "path", description: ARTIFACT_PATH_HELP } : parameter,
    );
    paths[`${path.slice(0, -"{*}".length)}{path}`] = { ...item, get: { ...item.get, parameters } };
  }
  const create = paths["/v1/runs"]?.post;
  const body = create?.requestBody;
  if (create !== undefined && body !== undefined && "content" in body) {
    const json = body.content["application/json"]?.schema;
    body.content["multipart/form-data"] = {
      schema: {
        type: "object",
        properties: {
          request: { ...(json ?? { type: "object" }), description: "the Run request, as the JSON body would be" },
          inputs: {
            type: "string",
            format: "binary",
            contentMediaType: "application/x-tar",
            description: "an uncompressed tar archive of the agent's input files",
          },
        },
        required: ["request"],
      },
      encoding: { request: { contentType: "application/json" }, inputs: { contentType: "application/x-tar" } },
    };
  }
  return { ...document, paths };
}

/**
 * Node holds a request's headers to HEADERS_TIMEOUT_MS only from its first byte: a connection that
 * sends nothing at all would be kept for ever. It is closed IDLE_CONNECTION_TIMEOUT_MS after it
 * opened unless a request has come by then; between requests, the keep-alive timeout holds it.
 */
function closeSilentConnections(server: Server): void {
  server.on("connection", (socket) => socket.setTimeout(IDLE_CONNECTION_TIMEOUT_MS));
  // Node destroys a socket that times out with no request on it; once one came, its own timeouts take over.
  server.on("request", (request) => request.socket.setTimeout(server.timeout));
}

/** Every error as `{ error, message }`, `error` a code of the catalogue: a refused request names the field and says what to send. */
function registerErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const context = ((error as { validationContext?: string }).validationContext ?? "body") as ValidationContext;
      return reply.code(400).send(errorBody("invalid_request", refusalOf(error.validation, context, request)));
    }
    const failure = error as Error & { statusCode?: number };
    const status = failure.statusCode ?? 500;
    // agentcage's own refusal keeps its code; Fastify's errors carry codes of their own (FST_ERR_...), not ours.
    if (status < 500 && failure instanceof AgentcageError) return reply.code(status).send(errorBody(failure.code, failure.message));
    if (status === 413)
      return reply.code(413).send(errorBody("too_large", `the request body is over ${MAX_BODY_BYTES} bytes (MAX_BODY_BYTES); send a shorter prompt`));
    if (status < 500) return reply.code(status).send(errorBody("invalid_request", failure.message));
    app.log.error({ err: failure.message }, "request failed");
    return reply.code(500).send(errorBody("internal", "the service failed this request; see its log"));
  });
  // Fastify's own answer to an unknown route carries no code of the catalogue; this one does.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    return reply.code(404).send(errorBody("not_found", `no route ${request.method} ${JSON.stringify(path)}; the routes are in GET /openapi.json`));
  });
}
