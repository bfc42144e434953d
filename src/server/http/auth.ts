// Bearer access: every route but the health checks and the agent card needs `Authorization: Bearer
// <key>`: the Operator's start-up token (compared in constant time as digests of equal length, so
// neither it nor its length leaks through timing), or a tenant's API key (keys.ts). The request then
// carries its Caller, and a route outside the key's scope is 403. Neither is ever logged or echoed.
// A stream a key opened is held past the door until it ends (key-streams.ts), so revoking the key or
// its expiry ends it too.

import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isConsolePath } from "./console.js";
import { A2A_JSONRPC_PATH } from "../a2a-limits.js";
import { traceHeadersOf } from "../../trace/index.js";
import { allows, OPERATOR, type Caller, type Scope } from "../caller.js";
import type { KeyRefusal, KeyStore } from "../tenancy/index.js";
import { MCP_PATH } from "../limits.js";
import { errorBody } from "./schemas.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Who sent it: set by the bearer check on every route that needs one. */
    caller: Caller;
  }
}

// The A2A agent card is public (A2A §5.4: it tells a client how to authenticate; ours holds no secret).
const OPEN_ROUTES = new Set(["/healthz", "/readyz", "/.well-known/agent-card.json"]);
/** Routes only the admin scope reaches: keys, tenants, the audit log, the warm pool's service-wide counts. */
const ADMIN_PREFIXES = ["/v1/keys", "/v1/tenants", "/v1/audit", "/v1/pool"];

/** Why a request was refused at the door: no key, or a key that is not one now. */
export type Refusal = KeyRefusal | "missing";

export type AuthOptions = {
  readonly token: string;
  readonly keys: KeyStore;
  /** Told of each refusal at the door, with the prefix of the key when the key had one (never the key). */
  readonly onRefused?: (request: FastifyRequest, refusal: Refusal, prefix: string | undefined) => void;
  /** Told of each request a known key made outside its scope. */
  readonly onForbidden?: (request: FastifyRequest, caller: Caller, needed: Scope) => void;
};

export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const expected = createHash("sha256").update(options.token).digest();
  const isOperator = (given: string) => timingSafeEqual(createHash("sha256").update(given).digest(), expected);
  app.decorateRequest("caller", null as unknown as Caller);
  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    // The console's page and files hold nothing until signed in; each call the page makes carries a key.
    if (OPEN_ROUTES.has(path) || ((request.method === "GET" || request.method === "HEAD") && isConsolePath(path))) return;
    const header = request.headers.authorization ?? "";
    const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
    const known = given === "" ? "missing" : isOperator(given) ? OPERATOR : callerOf(options.keys.verify(given));
    if (typeof known === "string") {
      options.onRefused?.(request, known, prefixOf(given));
      return unauthorized(reply, known);
    }
    const trace = traceHeadersOf(request.headers);
    request.caller = trace.traceparent === undefined ? known : { ...known, trace };
    const needed = scopeFor(request.method, path);
    if (!allows(known, needed)) {
      options.onForbidden?.(request, known, needed);
      const message = `this key's scope ${known.scope} does not allow ${request.method} ${path}; it needs ${needed}: ask the Operator for such a key (agentcage keys create --scope ${needed})`;
      return reply.code(403).send(errorBody("forbidden", message));
    }
  });
}

/** The scope a route needs: admin for keys, tenants, the audit log and the pool; runs:read to read; runs:write to change. A2A and MCP check each method and tool themselves. */
export function scopeFor(method: string, path: string): Scope {
  if (ADMIN_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return "admin";
  if (method === "GET" || method === "HEAD" || path === A2A_JSONRPC_PATH || path === MCP_PATH) return "runs:read";
  return "runs:write";
}

function callerOf(verified: ReturnType<KeyStore["verify"]>): Caller | KeyRefusal {
  return typeof verified === "string" ? verified : { tenant: verified.tenant, scope: verified.scope, key: verified.prefix };
}

/** The prefix of something shaped like a key, for the audit log; never more of it. */
function prefixOf(given: string): string | undefined {
  return /^ac_([0-9a-f]{12})_/.exec(given)?.[1];
}

/** The door's 401: also the answer of a stream whose key stopped being one after the door let it in (key-streams.ts). */
export function unauthorized(reply: FastifyReply, refusal: Refusal): FastifyReply {
  return reply
    .code(401)
    .header("WWW-Authenticate", 'Bearer realm="agentcage"')
    .send(errorBody("unauthorized", unauthorizedMessage(refusal)));
}

/** Why a key was refused, in one sentence that says what to do. */
export function unauthorizedMessage(refusal: Refusal): string {
  if (refusal === "revoked") return "this key was revoked; ask the Operator for a new one (agentcage keys create)";
  if (refusal === "expired") return "this key has expired; ask the Operator for a new one (agentcage keys create)";
  return "this route needs Authorization: Bearer <key>: an API key (ac_...) from agentcage keys create, or the token the service was started with (AGENTCAGE_TOKEN)";
}
