// How the service reads a JSON body, on every route that takes one (the app's parser, A2A's
// JSON-RPC, the multipart `request` part): parsed, then held to MAX_BODY_DEPTH before anything
// else sees it. Invariant: nothing recursive after the parser (a schema's check, a refusal quoting
// the value, JSON.stringify, an SDK) is ever handed a value nested deeper; the check is a loop.

import { MAX_BODY_DEPTH } from "../limits.js";

/** A body nested too deeply, as every route answers it: 400, naming the limit. */
export const TOO_DEEP = `the request body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep (MAX_BODY_DEPTH); send one nested at most ${MAX_BODY_DEPTH} levels`;

/** An error a content-type parser or a hook hands Fastify: answered with its status and message (app.ts's error handler). */
export function bodyRefusal(message: string): Error & { readonly statusCode: 400 } {
  return Object.assign(new Error(message), { statusCode: 400 as const });
}

/**
 * Whether a parsed JSON value nests arrays and objects more than MAX_BODY_DEPTH levels (the value
 * itself level 1). Walks with a stack of its own, so no depth overflows it, and stops at the first
 * level too many; a string, however long, is one step.
 */
export function nestsTooDeeply(value: unknown): boolean {
  const pending: Array<{ readonly value: unknown; readonly level: number }> = [{ value, level: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.level > MAX_BODY_DEPTH) return true;
    for (const inner of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      if (typeof inner === "object" && inner !== null) pending.push({ value: inner, level: next.level + 1 });
    }
  }
  return false;
}
