// Routing one HTTP request: only a live Run's token, presented from its Run's network, for a path
// of its CLI's model API, reaches that CLI's provider; a model call goes on to its checks and its
// budget (model-call.ts), any other listed path is forwarded as it is (forward.ts).
// Invariant: nothing is forwarded for a missing, unknown or revoked token, from elsewhere, for an
// unlisted path or a refused beta, or past the Run's requests in flight; each refusal is counted.

import type { IncomingMessage, ServerResponse } from "node:http";
import { openExchange, type Exchange } from "./exchange.js";
import { forward } from "./forward.js";
import { MAX_RUN_REQUESTS_IN_FLIGHT } from "./limits.js";
import type { LiveRun } from "./live-run.js";
import { forwardModelCall } from "./model-call.js";
import type { ProxyState } from "./proxy-state.js";
import { presentedToken } from "./headers.js";
import { EGRESS_PROVIDERS, type Route } from "./providers/index.js";
import { runOfToken } from "./run-registry.js";
import { fromItsRun, presentedElsewhere } from "./sources.js";

/** Paths a CLI probes with HEAD, without a credential, to see that its API answers. */
const PROBE_PATHS: ReadonlySet<string> = new Set(["/", "/api/hello"]);

export function createRequestHandler(state: ProxyState): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => routeRequest(state, openExchange(state, req, res));
}

function routeRequest(state: ProxyState, exchange: Exchange): void {
  const path = pathOf(exchange);
  if (path === undefined || answeredProbe(exchange, path)) return;
  const run = runOf(state, exchange);
  if (run === undefined) return;
  const upstream = state.config.upstreams[run.registration.provider];
  exchange.entry.host = upstream.host;
  const route = admittedRoute(exchange, run, path);
  if (route === undefined) return;
  const { res, target, entry } = exchange;
  run.requestsInFlight += 1;
  res.once("close", () => (run.requestsInFlight -= 1));
  if (!route.modelCall) {
    run.meter.countRequest();
    forward(state, { req: exchange.req, res, run, upstream, target, entry });
    return;
  }
  forwardModelCall(state, exchange, run, upstream);
}

/** The path asked for; undefined (refused) when the client takes the proxy for a plain-HTTP proxy. */
function pathOf({ target, entry, refuse }: Exchange): string | undefined {
  if (!target.startsWith("/")) {
    const host = hostOf(target);
    if (host !== undefined) entry.host = host;
    refuse(405, "not_a_proxy", "this proxy forwards only its Run's model API; plain-HTTP proxying to other hosts is refused");
    return undefined;
  }
  const queryAt = target.indexOf("?");
  const path = queryAt < 0 ? target : target.slice(0, queryAt);
  entry.path = path;
  return path;
}

/** claude's reachability probe (it sends no key with it): answered here, and nothing is forwarded. */
function answeredProbe({ method, res }: Exchange, path: string): boolean {
  if (method !== "HEAD" || !PROBE_PATHS.has(path)) return false;
  res.writeHead(200, { "content-length": "0" });
  res.end();
  return true;
}

/** The live Run whose token was presented from its own network; undefined when refused. */
function runOf(state: ProxyState, { req, entry, refuse }: Exchange): LiveRun | undefined {
  const token = presentedToken(req.headers);
  if (token === undefined) {
    refuse(401, "missing_token", "no per-Run token was presented; send it as x-api-key or Authorization: Bearer");
    return undefined;
  }
  const run = runOfToken(state, token);
  if (run === undefined) {
    refuse(401, "unknown_token", "the per-Run token is unknown or was revoked (its Run has ended); start a new Run");
    return undefined;
  }
  entry.runId = run.registration.runId;
  if (!fromItsRun(run, req.socket.remoteAddress)) {
    run.meter.countRefused();
    refuse(403, "token_elsewhere", presentedElsewhere(req.socket.remoteAddress));
    return undefined;
  }
  return run;
}

/** The route of the Run's provider asked for, once its headers and the Run's requests in flight allow it; undefined when refused. */
function admittedRoute({ req, method, refuse }: Exchange, run: LiveRun, path: string): Route | undefined {
  const provider = EGRESS_PROVIDERS[run.registration.provider];
  const route = provider.routes.find((r) => r.method === method && r.path === path);
  if (route === undefined) {
    run.meter.countRefused();
    refuse(403, "path_not_allowed", `${method} ${JSON.stringify(path)} is not a ${run.registration.provider} model API call this proxy forwards`);
    return undefined;
  }
  const refusal = provider.refusedHeaders?.(req.headers);
  if (refusal !== undefined) {
    run.meter.countRefused();
    refuse(403, "feature_not_allowed", refusal);
    return undefined;
  }
  if (run.requestsInFlight >= MAX_RUN_REQUESTS_IN_FLIGHT) {
    run.meter.countRefused();
    refuse(429, "too_many_requests", `the Run has ${MAX_RUN_REQUESTS_IN_FLIGHT} requests in flight already; wait for one to end`, {
      "retry-after": "1",
      "x-should-retry": "true",
    });
    return undefined;
  }
  return route;
}

function hostOf(target: string): string | undefined {
  try {
    return new URL(target).host;
  } catch {
    return undefined;
  }
}
