// Webhook deliveries and the check that a callback address is public.
// Invariant: exports only, no code.
export type { Resolver } from "./callback-address.js";
export { callbackRefusal, checkCallbackUrl } from "./callback-address.js";
export { postWebhook } from "./webhook-post.js";
export type { RetrySchedule } from "./webhook-schedule.js";
export { createWebhooks } from "./webhooks.js";
