// One attempt to deliver one webhook: its host resolved and checked again (callback-address.ts),
// the connection made to the address checked, the body POSTed signed per Standard Webhooks. Only a
// 2xx delivers it; a redirect is not followed. The attempt has one deadline for everything, and
// at most the first KiB of the answer is read and kept.

import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { Webhook } from "standardwebhooks";
import { checkCallbackUrl, pinnedLookup } from "./callback-address.js";

/** What of a receiver's answer is read and kept. */
export const MAX_ANSWER_BYTES = 1024;

export type WebhookMessage = {
  readonly url: string;
  readonly webhookId: string;
  readonly payload: string;
  readonly secret: string;
  /** The body's type; default application/json. */
  readonly contentType?: string;
  /** Sent as well (an A2A push's token); never one of the signature's or the body's own. */
  readonly headers?: Readonly<Record<string, string>>;
};

export type AttemptResult = {
  readonly delivered: boolean;
  readonly status?: number;
  readonly error?: string;
  readonly durationMs: number;
  readonly response?: string;
};

export type PostOptions = { readonly allowPrivate: boolean; readonly timeoutMs: number; readonly signal: AbortSignal };

export async function postWebhook(message: WebhookMessage, options: PostOptions): Promise<AttemptResult> {
  const started = Date.now();
  const took = () => Date.now() - started;
  const deadline = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  // A lookup cannot be cut short; the attempt is not held up by one when the service stops.
  const checked = await Promise.race([checkCallbackUrl(message.url, options.allowPrivate), aborted(options.signal)]);
  if (checked === "aborted") return { delivered: false, error: "the service stopped", durationMs: took() };
  if (!checked.ok) return { delivered: false, error: `the callback URL ${checked.why}; not posted`, durationMs: took() };
  const timestamp = new Date();
  const headers = {
    ...message.headers,
    "content-type": message.contentType ?? "application/json",
    "content-length": String(Buffer.byteLength(message.payload)),
    "user-agent": "agentcage",
    "webhook-id": message.webhookId,
    "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    "webhook-signature": new Webhook(message.secret).sign(message.webhookId, timestamp, message.payload),
  };
  const send = new URL(message.url).protocol === "https:" ? httpsRequest : httpRequest;
  try {
    const answer = await new Promise<{ status: number; response: string }>((resolve, reject) => {
      // No agent: one connection per attempt, to the address checked for it.
      const outgoing = send(message.url, { method: "POST", headers, agent: false, lookup: pinnedLookup(checked.addresses), signal: deadline }, (incoming) => {
        readStart(incoming).then((response) => resolve({ status: incoming.statusCode ?? 0, response }), reject);
      });
      outgoing.on("error", reject);
      outgoing.end(message.payload);
    });
    const delivered = answer.status >= 200 && answer.status < 300;
    return { delivered, status: answer.status, durationMs: took(), ...(answer.response === "" ? {} : { response: answer.response }) };
  } catch (error) {
    const said = deadline.aborted && !options.signal.aborted ? `no answer within ${options.timeoutMs / 1000} s` : (error as Error).message;
    return { delivered: false, error: said, durationMs: took() };
  }
}

function aborted(signal: AbortSignal): Promise<"aborted"> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
}

/** The first MAX_ANSWER_BYTES of an answer; the rest is not read. */
function readStart(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.destroy();
      resolve(Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString("utf8"));
    };
    incoming.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_ANSWER_BYTES) done();
    });
    incoming.on("end", done);
    incoming.on("error", reject);
  });
}
