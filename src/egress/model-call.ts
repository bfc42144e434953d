// A model call: read whole first (bounded: request-body.ts) so its tools and its bounds are checked
// before anything of it leaves, then admitted by its Run's budget: at once, once the calls in
// flight have settled enough of it, or refused.
// Invariants: nothing of a call is forwarded unless its Run is still live, its body passed the
// request policy and its meter admitted it; an admission left unused is settled with nothing.

import { once } from "node:events";
import type { ServerResponse } from "node:http";
import type { Exchange } from "./exchange.js";
import { forward } from "./forward.js";
import { MAX_BUDGET_WAIT_MS } from "./limits.js";
import type { LiveRun } from "./live-run.js";
import type { Admission, Reservation, Settle } from "./meter.js";
import { emitBreach } from "./proxy-log.js";
import type { ProxyState } from "./proxy-state.js";
import { isLive } from "./run-registry.js";
import { EGRESS_PROVIDERS } from "./providers/index.js";
import { readHeldBody, type BodyRead } from "./request-body.js";
import { readModelCallBody } from "./request-policy.js";
import { worstCaseOf } from "./reservation.js";

export function forwardModelCall(state: ProxyState, exchange: Exchange, run: LiveRun, upstream: URL): void {
  const { req, res, target, entry } = exchange;
  void readHeldBody(req, run.heldBytes, state.heldBytes).then(async (read) => {
    const body = heldBody(state, exchange, run, read);
    if (body === undefined) return;
    const reservation = reservationOf(exchange, run, body);
    if (reservation === undefined) return;
    const settle = await budgetFor(state, exchange, run, reservation);
    if (settle === undefined) return;
    forward(state, { req, res, run, upstream, target, entry, settle, body });
  });
}

/** The body read, held until the response closes; undefined when refused or the client left. */
function heldBody(state: ProxyState, { res, entry, refuse }: Exchange, run: LiveRun, read: BodyRead): Buffer | undefined {
  if (read.kind === "gone" || res.destroyed) return undefined;
  if (read.kind === "too_large") {
    entry.bytesIn = read.limit;
    run.meter.countRefused();
    if (read.bound === "request")
      refuse(413, "request_too_large", `the request body passed ${read.limit} bytes; nothing of it was answered`, { connection: "close" });
    else
      refuse(
        read.bound === "run" ? 429 : 503,
        "too_many_bytes_held",
        `${read.bound === "run" ? "the Run's" : "every Run's"} request bodies in the proxy passed ${read.limit} bytes at once; send fewer or smaller calls at a time`,
        { connection: "close", "retry-after": "1", "x-should-retry": "true" },
      );
    return undefined;
  }
  res.once("close", read.release);
  entry.bytesIn = read.body.length;
  if (!isLive(state, run)) {
    refuse(401, "unknown_token", "the per-Run token was revoked while its request was read (its Run has ended)");
    return undefined;
  }
  return read.body;
}

/** The worst the call can spend, once its body passed the request policy; undefined when refused. */
function reservationOf({ req, refuse }: Exchange, run: LiveRun, body: Buffer): Reservation | undefined {
  const { provider } = run.registration;
  const parsed = readModelCallBody(body, req.headers["content-encoding"]);
  const refusal = "refusal" in parsed ? parsed.refusal : EGRESS_PROVIDERS[provider].refusedBody?.(parsed.body);
  if (refusal !== undefined) {
    run.meter.countRefused();
    refuse(403, "feature_not_allowed", refusal);
    return undefined;
  }
  if ("refusal" in parsed) return undefined; // refused just above; tells the compiler the body was read
  return worstCaseOf(provider, parsed.body, parsed.bytes);
}

/** The call's admission to settle with its answer; undefined when refused, told to wait too long, or the client left. */
async function budgetFor(state: ProxyState, { res, refuse }: Exchange, run: LiveRun, reservation: Reservation): Promise<Settle | undefined> {
  const admission = await admitModelCall(run, reservation, res, () => isLive(state, run));
  if (admission === "revoked") {
    // A Run revoked while its call waited took its token and its budget with it: nothing is counted, nothing leaves.
    refuse(401, "unknown_token", "the per-Run token was revoked while its call waited on the Run's budget (its Run has ended)");
    return undefined;
  }
  if (admission === undefined || res.destroyed) {
    if (admission?.kind === "admitted") admission.settle(undefined);
    return undefined;
  }
  if (admission.kind === "refused") {
    run.meter.countRefused();
    refuse(EGRESS_PROVIDERS[run.registration.provider].budgetRefusalStatus, "budget_exceeded", admission.refused.message);
    if (admission.fresh) emitBreach(state, admission.refused);
    return undefined;
  }
  if (admission.kind === "wait") {
    run.meter.countRefused();
    refuse(
      429,
      "budget_wait",
      `the Run's calls in flight could spend what is left of its budget, and did not settle within ${MAX_BUDGET_WAIT_MS / 1000} s; call again`,
      { "retry-after": "1", "x-should-retry": "true" },
    );
    return undefined;
  }
  return admission.settle;
}

/**
 * Admits a model call against the Run's budget: at once, or once the calls in flight have settled
 * enough of it (a "wait" answer after MAX_BUDGET_WAIT_MS); undefined when the client left meanwhile,
 * "revoked" when the Run ended meanwhile (looked at before each try, so a revoked Run's call is never counted).
 */
async function admitModelCall(run: LiveRun, reservation: Reservation, res: ServerResponse, live: () => boolean): Promise<Admission | "revoked" | undefined> {
  const giveUp = Date.now() + MAX_BUDGET_WAIT_MS;
  // One listener for the client leaving, however many times the call is woken to try again.
  const gone = once(res, "close").then(() => "gone" as const);
  for (;;) {
    if (!live()) return "revoked";
    const admission = run.meter.admit(reservation);
    if (admission.kind !== "wait") return admission;
    const left = giveUp - Date.now();
    if (left <= 0) return admission;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      run.meter.settled().then(() => "settled" as const),
      gone,
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left))),
    ]);
    clearTimeout(timer);
    if (outcome === "gone") return undefined;
  }
}
